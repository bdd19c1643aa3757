import { Writable } from 'node:stream';
import { createLogger, loggableUrl, serializeError } from './logger';

describe('loggableUrl', () => {
  it('keeps a URL without a query as it is', () => {
    expect(loggableUrl('/v1/products')).toBe('/v1/products');
  });

  it('hides the values of credential-like parameters and keeps the others', () => {
    expect(loggableUrl('/v1/orders?__jwtAuthorization=abc.def.ghi&page=2')).toBe(
      '/v1/orders?__jwtAuthorization=%5BREDACTED%5D&page=2',
    );
    expect(loggableUrl('/x?refresh_token=r&api_key=k&name=bob')).toBe(
      '/x?refresh_token=%5BREDACTED%5D&api_key=%5BREDACTED%5D&name=bob',
    );
  });

  it('hides them when the name is percent-encoded', () => {
    expect(loggableUrl('/v1/orders?%5F%5FjwtAuthorization=abc.def.ghi')).toBe(
      '/v1/orders?__jwtAuthorization=%5BREDACTED%5D',
    );
    expect(loggableUrl('/v1/orders?__%6Awt%41uthorization=abc.def.ghi&x=%zz')).toBe(
      '/v1/orders?__jwtAuthorization=%5BREDACTED%5D&x=%25zz',
    );
  });

  it('hides credential-like path parameters (;name=value) in any segment, encoded or not', () => {
    expect(loggableUrl('/v1/users/me;__jwtAuthorization=abc.def.ghi')).toBe(
      '/v1/users/me;__jwtAuthorization=%5BREDACTED%5D',
    );
    expect(loggableUrl('/v1;__jwtAuthorization=a.b.c/users/me;page=2')).toBe(
      '/v1;__jwtAuthorization=%5BREDACTED%5D/users/me;page=2',
    );
    expect(loggableUrl('/v1/users/me;%5f%5FJWTauthorization=a.b.c;x=1?page=2')).toBe(
      '/v1/users/me;%5f%5FJWTauthorization=%5BREDACTED%5D;x=1?page=2',
    );
    expect(loggableUrl('/v1/users/me;__%zz%6Awt=a.b.c')).toBe('/v1/users/me;__%zz%6Awt=%5BREDACTED%5D');
  });

  it('keeps path parameters that are not credential-like', () => {
    expect(loggableUrl('/v1/products;color=red/1')).toBe('/v1/products;color=red/1');
  });
});

describe('serializeError', () => {
  it('keeps type, message, code and stack but not query parameters', () => {
    const error = Object.assign(new Error('insert failed'), {
      code: '23505',
      parameters: ['$argon2id$v=19$secret-hash'],
      query: 'INSERT ...',
    });
    const serialized = serializeError(error);
    expect(serialized).toMatchObject({ type: 'Error', message: 'insert failed', code: '23505' });
    expect(JSON.stringify(serialized)).not.toContain('secret-hash');
  });
});

describe('createLogger', () => {
  it('redacts credential fields wherever they appear in a record', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger('info', sink);
    logger.info({
      password: 'p4ss',
      body: { jwt: 'eyJ.x.y', refresh_token: 'r3fr' },
      headers: { authorization: 'k:s' },
    });
    const text = lines.join('');
    for (const secret of ['p4ss', 'eyJ.x.y', 'r3fr', 'k:s']) expect(text).not.toContain(secret);
    expect(text).toContain('[REDACTED]');
  });
});
