import type { EntityManager } from 'typeorm';
import { type CompanyLoginRules, LoginPolicy, type SessionProof } from './login-policy';

const manager = {} as EntityManager;
const password: SessionProof = { method: 'password', email: 'ann@acme.example' };
const account = { id: 1, email: 'ann@acme.example' };

/** Rules enforcing SSO in `enforced`, attaching accounts as `attaches` says, counting proofs as `counts` says. */
function rules(enforced: number[], attaches: boolean, counts = true): CompanyLoginRules {
  const refuse = async (companyId: number) => {
    if (enforced.includes(companyId)) throw new Error(`sso required in ${companyId}`);
  };
  return {
    assertPasswordLoginAllowed: refuse,
    enforcedAmong: async (ids) => new Set(ids.filter((id) => enforced.includes(id))),
    assertSessionMayEnter: (_manager, companyId) => refuse(companyId),
    sessionCounts: async () => counts,
    mayAttach: async () => attaches,
  };
}

describe('LoginPolicy', () => {
  it('without rules enforces nothing and attaches no account', async () => {
    const policy = LoginPolicy.of([]);
    await expect(policy.assertPasswordLoginAllowed(7)).resolves.toBeUndefined();
    await expect(policy.enforcedAmong([7, 8])).resolves.toEqual(new Set());
    await expect(policy.assertSessionMayEnter(manager, 7, password)).resolves.toBeUndefined();
    await expect(policy.sessionCounts(manager, 7, password)).resolves.toBe(true);
    await expect(policy.mayAttach(manager, 7, account)).resolves.toBe(false);
  });

  it('with one rule set answers as that rule set', async () => {
    const policy = LoginPolicy.of([rules([7], true, false)]);
    await expect(policy.assertPasswordLoginAllowed(7)).rejects.toThrow('sso required in 7');
    await expect(policy.assertPasswordLoginAllowed(8)).resolves.toBeUndefined();
    await expect(policy.enforcedAmong([7, 8])).resolves.toEqual(new Set([7]));
    await expect(policy.assertSessionMayEnter(manager, 7, password)).rejects.toThrow('sso required in 7');
    await expect(policy.sessionCounts(manager, 8, password)).resolves.toBe(false);
    await expect(policy.mayAttach(manager, 8, account)).resolves.toBe(true);
  });

  it('with several, a way in is open only when each rule set lets it through', async () => {
    const policy = LoginPolicy.of([rules([7], true), rules([8], false)]);
    await expect(policy.assertPasswordLoginAllowed(8)).rejects.toThrow('sso required in 8');
    await expect(policy.assertPasswordLoginAllowed(9)).resolves.toBeUndefined();
    await expect(policy.enforcedAmong([7, 8, 9])).resolves.toEqual(new Set([7, 8]));
    await expect(policy.sessionCounts(manager, 9, password)).resolves.toBe(true);
    await expect(policy.mayAttach(manager, 9, account)).resolves.toBe(false);
  });
});
