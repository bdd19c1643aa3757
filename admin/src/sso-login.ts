import { type Account, ApiError, request } from './api';

/** Where the provider sends the browser back: this page, the outcome in the fragment (never sent to a server). */
const RETURN_TO = '/admin';

/** Starts a sign-in through the company's provider (by e-mail domain or company) and leaves for it. */
export async function startSso(by: { email: string } | { company_id: number }): Promise<void> {
  const { authorization_url } = await request<{ authorization_url: string }>('POST', '/v1/sso/start', {
    body: { ...by, return_to: RETURN_TO },
    withCookies: true,
  });
  window.location.assign(authorization_url);
}

/** What the fragment brought back from a sign-in, read once and then removed from the address bar. */
export function takeSsoFragment(): { code: string } | { error: string } | null {
  const fields = new URLSearchParams(window.location.hash.replace(/^#/, ''));
  const code = fields.get('sso_code');
  const error = fields.get('sso_error');
  if (!code && !error) return null;
  window.history.replaceState(null, '', window.location.pathname + window.location.search);
  return code ? { code } : { error: error! };
}

export function exchangeSsoCode(code: string): Promise<Account> {
  return request<Account>('POST', '/v1/sso/exchange', { body: { sso_code: code }, withCookies: true });
}

export function ssoErrorText(code: string): string {
  switch (code) {
    case 'error_company_not_member':
      return 'Your identity provider signed you in, but your account does not belong to this company. Ask an administrator to add you.';
    case 'error_login_ticket_invalid':
      return 'That sign-in link was already used or has expired. Start again.';
    case 'error_service_unavailable':
      return 'Your company’s identity provider cannot be reached right now. Try again in a moment.';
    case 'error_not_found':
      return 'No single sign-on is set up for this e-mail’s domain or company.';
    default:
      return 'Your identity provider did not sign you in (the answer could not be accepted). Try again, or ask your administrator.';
  }
}

export function ssoStartError(error: unknown): string | null {
  if (error instanceof ApiError && error.status === 404) return ssoErrorText('error_not_found');
  if (error instanceof ApiError && error.status === 503) return ssoErrorText('error_service_unavailable');
  return null;
}
