import { missingHint, notFoundHint } from './credential-hints';

describe('the 401 hints fit what was sent', () => {
  it.each(['Bearer eyJabc', 'bearer ak_x:y', 'BEARER ', 'Bearer'])('%p: drop the Bearer prefix', (header) => {
    expect(notFoundHint(header)).toBe(
      'The credential is not valid: send the raw token or API key, without the Bearer prefix.',
    );
  });

  it.each([
    ['undefined', 'undefined'],
    ['null', 'null'],
    ['NULL', 'null'],
    ['[object Object]', '[object object]'],
    ['""', '""'],
  ])('%p: an unset value, named, and no word of Bearer', (header, word) => {
    const hint = notFoundHint(header);
    expect(hint).toContain(`says "${word}", not a credential`);
    expect(hint).not.toMatch(/bearer/i);
  });

  it.each(['garbage', 'a.b.c', 'ak_unknown:secret', 'undefinedx'])('%p: not ours, without Bearer advice', (header) => {
    const hint = notFoundHint(header);
    expect(hint).toMatch(/^The credential is not valid: it is malformed, unknown or was never issued/);
    expect(hint).not.toContain(header);
    expect(hint).not.toMatch(/bearer/i);
  });

  it('tells an empty header from a missing one', () => {
    expect(missingHint(undefined)).toMatch(/^This API needs an Authorization header: send the jwt/);
    expect(missingHint('')).toMatch(/^The Authorization header is empty: send the jwt/);
    expect(missingHint('   ')).toMatch(/^The Authorization header is empty: send the jwt/);
  });
});
