import { isUuid } from './uuid';

describe('isUuid', () => {
  it('accepts the lower-case UUIDs the service issues', () => {
    expect(isUuid('5f0c6a8e-2b1d-4c3e-9f00-0123456789ab')).toBe(true);
  });

  it.each([
    ['upper case', '5F0C6A8E-2B1D-4C3E-9F00-0123456789AB'],
    ['no dashes', '5f0c6a8e2b1d4c3e9f000123456789ab'],
    ['one character short', '5f0c6a8e-2b1d-4c3e-9f00-0123456789a'],
    ['surrounding text', ' 5f0c6a8e-2b1d-4c3e-9f00-0123456789ab'],
    ['a record id', '42'],
    ['empty', ''],
  ])('refuses %s', (_label, value) => {
    expect(isUuid(value)).toBe(false);
  });
});
