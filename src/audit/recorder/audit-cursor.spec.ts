import { ApiError } from '../../platform/common/errors/api-error';
import { decodeCursor, encodeCursor } from './audit-cursor';

const forged = (text: string) => Buffer.from(text, 'utf8').toString('base64');

describe('audit cursor', () => {
  it('decodes what it encodes, up to the largest bigint id', () => {
    for (const cursor of [
      { micros: '1795616944355123', id: '1' },
      { micros: '-1', id: '9223372036854775807' },
    ]) {
      expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor);
    }
  });

  it.each([
    ['the scan’s id past bigint', 'MTo5OTk5OTk5OTk5OTk5OTk5OTk5'],
    ['the largest bigint plus one', forged('1:9223372036854775808')],
    ['twenty digits of id', forged('1:12345678901234567890')],
    ['eighteen digits of microseconds', forged('123456789012345678:1')],
    ['no separator', forged('12345')],
    ['not base64', 'not a cursor!'],
  ])('refuses %s as 400 error_validation naming cursor', (_label, value) => {
    let thrown: unknown;
    try {
      decodeCursor(value);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).getStatus()).toBe(400);
    expect(JSON.stringify((thrown as ApiError).getResponse())).toContain('cursor');
  });
});
