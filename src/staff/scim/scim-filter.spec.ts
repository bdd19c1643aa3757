import { parseUserFilter } from './scim-filter';

describe('SCIM filter', () => {
  it.each([
    ['userName eq "ann@example.com"', 'ann@example.com'],
    ['USERNAME EQ "Ann@Example.com"', 'Ann@Example.com'],
    ['  userName   eq   "a\\"b@example.com" ', 'a"b@example.com'],
    ['urn:ietf:params:scim:schemas:core:2.0:User:userName eq "x@example.com"', 'x@example.com'],
    ['userName eq ""', ''],
  ])('accepts %s', (filter, userName) => {
    expect(parseUserFilter(filter)).toEqual({ userName });
  });

  it.each([
    'userName sw "ann"',
    'userName co "ann"',
    'externalId eq "123"',
    'emails.value eq "ann@example.com"',
    'userName eq "a" and active eq true',
    'userName eq ann@example.com',
    'userName eq true',
    'userName eq "unterminated',
    'userName pr',
    '',
    '(userName eq "a")',
    'userName eq "\\x"',
    'userName eq "a\\u0000b"',
    'userName eq "\\ud800"',
    'userName eq "\\udfff@example.com"',
  ])('refuses %s with invalidFilter', (filter) => {
    expect(() => parseUserFilter(filter)).toThrow(
      expect.objectContaining({ rawBody: expect.objectContaining({ status: '400', scimType: 'invalidFilter' }) }),
    );
  });
});
