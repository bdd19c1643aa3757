import createClient from 'openapi-fetch';
import type { paths } from './openapi';

/**
 * The openapi-fetch example of docs/client.md: types generated from /docs/openapi.json (`npm run client:generate`) and
 * openapi-fetch. Logs in (two steps), asks who it is, then reads one product. A test runs it against a started
 * service, so the example, the generated types and the service cannot drift apart.
 */
export async function loginAndReadAProduct(baseUrl: string, email: string, password: string) {
  const api = createClient<paths>({ baseUrl });

  // 1. Which companies does the account belong to?
  const init = await api.POST('/v1/users/authenticateinit', { body: { email, password } });
  if (!init.data) throw new Error(`authenticateinit: ${init.response.status} ${JSON.stringify(init.error)}`);
  const company = init.data.companies[0];

  // 2. A token bound to one of them.
  const login = await api.POST('/v1/users/authenticatefinish', { body: { email, password, company_id: company.id } });
  if (!login.data) throw new Error(`authenticatefinish: ${login.response.status} ${JSON.stringify(login.error)}`);
  // The raw token in Authorization, no "Bearer ".
  const headers = { authorization: login.data.jwt };

  const me = await api.GET('/v1/users/me', { headers });
  if (!me.data) throw new Error(`me: ${me.response.status} ${JSON.stringify(me.error)}`);

  const page = await api.GET('/v1/products', { headers, params: { query: { per_page: 1 } } });
  if (!page.data) throw new Error(`listProducts: ${page.response.status} ${JSON.stringify(page.error)}`);
  const first = page.data.data[0];
  const product = first
    ? await api.GET('/v1/products/{id}', { headers, params: { path: { id: first.id } } })
    : undefined;

  return {
    employee: me.data.employee.email,
    company: me.data.company.name,
    permissions: me.data.permissions,
    product: product?.data ? { id: product.data.id, name: product.data.name, price: product.data.price } : null,
    remaining: page.response.headers.get('x-rate-limit-remaining'),
  };
}
