import { commonPasswordCount, passwordProblem } from './password-rule';

describe('the password rule (docs/contract.md, NIST SP 800-63B)', () => {
  it('draws on a list of at least 10,000 common or breached passwords', () => {
    expect(commonPasswordCount()).toBeGreaterThanOrEqual(10_000);
  });

  it.each(['password1', 'Password1', 'QWERTY123', 'iloveyou1', '1234567890', 'baseball'])(
    'refuses the common password %s, whatever its case',
    (password) => expect(passwordProblem(password, 'ann@example.test')).toMatch(/too common/),
  );

  it('refuses fewer than 8 or more than 256 characters, counting characters rather than UTF-16 units', () => {
    expect(passwordProblem('Sh0rt!x', null)).toMatch(/8 to 256/);
    expect(passwordProblem('x'.repeat(257), null)).toMatch(/8 to 256/);
    expect(passwordProblem('Zq7!'.repeat(64), null)).toBeNull();
    // Seven emoji are 14 UTF-16 units but seven characters.
    expect(passwordProblem('🦊🦊🦊🦊🦊🦊🦊', null)).toMatch(/8 to 256/);
  });

  it('refuses the account’s own e-mail address, in any case', () => {
    expect(passwordProblem('Ann.Long@Example.test', 'ann.long@example.test')).toMatch(/e-mail/);
    expect(passwordProblem('ann.long@example.test', 'someone@example.test')).toBeNull();
  });

  it('accepts an uncommon password of acceptable length', () => {
    expect(passwordProblem('Correct-Horse-7731', 'ann@example.test')).toBeNull();
  });
});
