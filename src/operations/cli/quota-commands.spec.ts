import { UsageError } from './cli-command';
import { QUOTA_COMMANDS } from './quota-commands';

/** The quota commands' flag checks, run before the CLI opens the database (one line, exit code 2). */
describe('quota commands: flag checks', () => {
  const set = (flags: Record<string, string>) => () =>
    QUOTA_COMMANDS['quota:set'].check!({ company: '1', per: 'day', limit: '5', ...flags });

  it('accepts hour or day in any case, limits 1 to 1,000,000,000, an API key UUID', () => {
    const accepted: Array<Record<string, string>> = [
      { per: 'hour' },
      { per: 'DAY' },
      { limit: '1' },
      { limit: '1000000000' },
    ];
    for (const flags of accepted) {
      expect(set(flags)).not.toThrow();
    }
    expect(set({ 'api-key': '0b9c7f9e-8f0e-4d7e-9a55-0c3f6a1e2b3c' })).not.toThrow();
  });

  it.each([
    [{ per: 'week' }, /^--per must be hour or day, got "week"$/],
    [{ per: '' }, /^--per must be hour or day/],
    [{ limit: '0' }, /^--limit must be a positive whole number, got "0"$/],
    [{ limit: '1.5' }, /^--limit must be a positive whole number/],
    [{ limit: '-3' }, /^--limit must be a positive whole number/],
    [{ limit: '1000000001' }, /^--limit must be 1 to 1000000000, got 1000000001$/],
    [{ company: 'x' }, /^--company must be a positive whole number/],
    [{ 'api-key': 'abc' }, /^--api-key must be an API key's id \(a UUID\), got "abc"$/],
  ])('refuses %j', (flags, message) => {
    expect(set(flags)).toThrow(UsageError);
    expect(set(flags)).toThrow(message);
  });

  it('checks quota:list --company and quota:unset --id', () => {
    expect(() => QUOTA_COMMANDS['quota:list'].check!({ company: '0' })).toThrow(/^--company must be/);
    expect(() => QUOTA_COMMANDS['quota:list'].check!({})).not.toThrow();
    expect(() => QUOTA_COMMANDS['quota:unset'].check!({ id: 'x' })).toThrow(/^--id must be/);
    expect(QUOTA_COMMANDS['quota:set'].flags).toEqual({ required: ['company', 'per', 'limit'], optional: ['api-key'] });
  });
});
