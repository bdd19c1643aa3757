import { LOGIN_FIRST, loginFirst } from './openapi';

describe('loginFirst (the order of the document’s paths)', () => {
  const item = (name: string) => ({ summary: name });

  it('puts the login operations first, in the order a client calls them, and keeps the rest in theirs', () => {
    const paths = {
      '/health': item('health'),
      '/v1/users/changeworkingcompany': item('switch'),
      '/v1/users/logout': item('logout'),
      '/v1/users/authenticateinit': item('init'),
      '/v1/users/refreshtoken': item('refresh'),
      '/v1/users/authenticatefinish': item('finish'),
      '/v1/products': item('products'),
    };
    const ordered = loginFirst(paths);
    expect(Object.keys(ordered)).toEqual([...LOGIN_FIRST, '/health', '/v1/users/changeworkingcompany', '/v1/products']);
    expect(ordered['/v1/users/logout']).toBe(paths['/v1/users/logout']);
  });

  it('leaves out a login path the document does not have', () => {
    expect(Object.keys(loginFirst({ '/a': item('a'), '/v1/users/logout': item('logout') }))).toEqual([
      '/v1/users/logout',
      '/a',
    ]);
  });
});
