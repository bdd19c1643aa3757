import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { sha256Hex } from '../src/identity/auth/credentials/sha256';
import { CapScimTokens1795553800000 } from '../src/platform/database/migrations/1795553800000-CapScimTokens';
import { authed, createAccount, createCompanies, login } from './support/fixtures';
import { expectScimError, scimClient } from './support/scim';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * The migration that gives SCIM tokens their permissions (docs/contract.md "Nobody grants more than they hold"):
 * tokens made before it carry what their creator holds at the upgrade, so a token an `sso:manage` holder made can
 * no longer provision, and one whose creator is gone carries nothing. Run down and up again on a migrated
 * database holding tokens of the old shape, on both databases.
 */
describe('migration CapScimTokens', () => {
  let t: TestApp;
  afterAll(() => t?.close());

  it('fills each existing token with what its creator holds in its company; a gone creator gives none', async () => {
    t = await startTestApp();
    const [acme, other] = await createCompanies(t, 'Acme', 'Other');
    const owner = await createAccount(t, [acme.id], ['*']);
    const manager = await createAccount(t, [acme.id, other.id], ['sso:manage']);
    const leaver = await createAccount(t, [acme.id], ['*']);
    // Gone from the company before the upgrade (its account stays).
    await authed(t, (await login(t, owner, acme.id)).jwt)
      .delete(`/v1/users/${leaver.id}`)
      .expect(204);
    const dataSource = t.app.get(DataSource);
    const runner = dataSource.createQueryRunner();
    const migration = new CapScimTokens1795553800000();
    const tokens = { owner: 'scim_owner-token-of-before-the-cap-0000', manager: 'scim_manager-token-of-before-0000' };
    try {
      await migration.down(runner);
      const insert = (token: string, createdBy: number | null) =>
        runner.query(
          `INSERT INTO scim_token (id, company_id, name, token_hash, created_by, created_at)
           VALUES ($1, $2, 'idp', $3, $4, now())`,
          [randomUUID(), acme.id, sha256Hex(token), createdBy],
        );
      await insert(tokens.owner, owner.id);
      await insert(tokens.manager, manager.id);
      await insert('scim_leaver-token-000000000000000000', leaver.id);
      await insert('scim_nobody-token-000000000000000000', null);
      await migration.up(runner);
    } finally {
      await runner.release();
    }
    const rows = await dataSource.query<Array<{ created_by: number | null; permissions: string[] }>>(
      'SELECT created_by, permissions FROM scim_token ORDER BY created_by NULLS LAST',
    );
    expect(rows).toEqual(
      [
        { created_by: owner.id, permissions: ['*'] },
        { created_by: manager.id, permissions: ['sso:manage'] },
        { created_by: leaver.id, permissions: [] },
        { created_by: null, permissions: [] },
      ].sort((a, b) => (a.created_by ?? Infinity) - (b.created_by ?? Infinity)),
    );
    // What that means at the next request: the owner's token provisions, the sso:manage holder's no longer does.
    await scimClient(t, tokens.owner).get('/Users').expect(200);
    expectScimError(await scimClient(t, tokens.manager).get('/Users'), 403);
    expectScimError(await scimClient(t, tokens.manager).post('/Users', { userName: 'x@acme.example' }), 403);
  });
});
