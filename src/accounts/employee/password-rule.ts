import { dictionary } from '@zxcvbn-ts/language-common';

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 256;

/**
 * NIST SP 800-63B's blocklist: the ~49,000 most common passwords that @zxcvbn-ts/language-common ships (drawn
 * from breach corpora and kept up to date by that project). Compared case-insensitively, so `Password1` is as
 * refused as `password1`. Built once, on first use.
 */
let common: ReadonlySet<string> | undefined;
function commonPasswords(): ReadonlySet<string> {
  common ??= new Set((dictionary['passwords-common'] as string[]).map((entry) => entry.toLowerCase()));
  return common;
}

export function commonPasswordCount(): number {
  return commonPasswords().size;
}

/**
 * The password rule (docs/contract.md): 8 to 256 characters, not the account's e-mail, not a common password.
 * Returns why `password` is refused, phrased to follow the field name, or null when it is acceptable. One rule
 * for the API, the CLI and the administration page.
 */
export function passwordProblem(password: string, email?: string | null): string | null {
  // Characters as a person counts them (code points), so an emoji is one, not two.
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH) {
    return `must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long`;
  }
  const lowered = password.trim().toLowerCase();
  if (email && lowered === email.trim().toLowerCase()) return 'must not be the account’s e-mail address';
  if (commonPasswords().has(lowered)) return 'is too common (it appears in lists of breached passwords)';
  return null;
}
