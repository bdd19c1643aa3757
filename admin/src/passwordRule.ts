/**
 * The service's password rule, the same code (src/accounts/employee/password-rule.ts), loaded when a form first needs it:
 * its list of 49,000 common passwords is a chunk of its own, so the login screen does not download it.
 */
export async function passwordProblem(password: string, email: string | null): Promise<string | null> {
  const rule = await import('../../src/accounts/employee/password-rule');
  const problem = rule.passwordProblem(password, email);
  return problem && `The new password ${problem}.`;
}
