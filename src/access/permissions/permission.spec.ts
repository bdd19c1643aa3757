import { grants, parseGrants } from './permission';

describe('permissions', () => {
  it('parses a comma-separated list into sorted unique grants', () => {
    expect(parseGrants(' orders:write,users:read ,orders:write')).toEqual(['orders:write', 'users:read']);
  });

  it('collapses any list holding * to * alone', () => {
    expect(parseGrants('users:read,*')).toEqual(['*']);
  });

  it.each(['', ' , ', 'users:read,users:delete', 'admin'])('refuses %p', (list) => {
    expect(() => parseGrants(list)).toThrow();
  });

  it('grants what is held, everything for *, and nothing else', () => {
    expect(grants(['users:read'], 'users:read')).toBe(true);
    expect(grants(['users:read'], 'users:write')).toBe(false);
    expect(grants(['*'], 'apikeys:manage')).toBe(true);
    expect(grants([], 'users:read')).toBe(false);
  });
});
