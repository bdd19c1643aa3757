import { createStaffAuthClient } from '../src';

/**
 * The example of docs/client.md ("Calling the API from TypeScript"), verbatim but for the import (in an
 * application: `from '@staff-auth/client'`). test/client-package.embedded-only.e2e-spec.ts runs it against a built
 * instance with the real limits and checks that docs/client.md shows exactly this;
 * test/readme-quick-start.embedded-only.e2e-spec.ts runs it on a fresh `npm start`'s demo data, and
 * test/client-package-install.embedded-only.e2e-spec.ts from the packed package.
 */
export async function readProducts(
  baseUrl: string,
  email: string,
  password: string,
  askForCode: () => Promise<string>,
) {
  const client = createStaffAuthClient({ baseUrl, retry: { maxWaitMs: 30_000 } });
  // authenticateinit, then authenticatefinish; `otp` is asked for only when the account has TOTP on.
  await client.login({ email, password, company: (companies) => companies[0], otp: askForCode });
  try {
    const list = await client.api.GET('/v1/products', { params: { query: { per_page: 100 } } });
    if (!list.data) throw new Error(`GET /v1/products: ${list.response.status} ${JSON.stringify(list.error)}`);
    // All at once: the client sends them as the GET bucket of `products` admits them (30, then 10 per second).
    const answers = await Promise.all(
      list.data.data.map(({ id }) => client.api.GET('/v1/products/{id}', { params: { path: { id } } })),
    );
    return answers.map(({ data, error, response }) =>
      data ? `${data.sku}: ${data.name}, ${data.price}` : `${response.status} ${JSON.stringify(error)}`,
    );
  } finally {
    await client.logout();
  }
}
