import { ApiError, describeError, formatWait } from './api';
import { passkeyProblem } from './passkey-client';

/** What the login screen says when a login step fails. */
export function loginError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === 'error_invalid_credentials') return 'Wrong e-mail or password.';
    if (error.status === 429 && error.perAccount) {
      const wait = error.retryAfter ? formatWait(error.retryAfter) : 'a while';
      return `Too many failed logins for this e-mail. Logging in is locked; try again in ${wait}.`;
    }
    if (error.status === 429) {
      // The request limit is a leaky bucket: Retry-After says when the next request fits, usually 1 second.
      return `Too many requests from this address. Try again in ${formatWait(error.retryAfter ?? 1)}.`;
    }
    if (error.code === 'error_company_not_member') return 'Your account no longer belongs to that company.';
    if (error.code === 'error_sso_required') {
      return 'This company signs its staff in through its identity provider only: passwords are refused. Use “Sign in with your company’s SSO”.';
    }
    if (error.code === 'error_otp_required') return 'Enter the 6-digit code from your authenticator app.';
    if (error.code === 'error_otp_invalid') {
      return 'That code is not valid (wrong, already used, or too old). Enter the current code from your app.';
    }
  }
  return describeError(error);
}

/** A passkey sign-in that failed: the browser's own refusal, an unknown passkey, or any login error. */
export function passkeyLoginError(failure: unknown): string {
  return (
    passkeyProblem(failure) ??
    (failure instanceof ApiError && failure.code === 'error_invalid_credentials'
      ? 'That passkey is not registered here, or it could not be verified.'
      : loginError(failure))
  );
}
