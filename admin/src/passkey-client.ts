import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { ApiError, type Company, request } from './api';

/** A passkey assertion to a fresh challenge of the service: what a passkey login and a reauthentication send. */
export async function passkeyAssertion(): Promise<{ challenge_id: string; response: unknown }> {
  const { challenge_id, options } = await request<{ challenge_id: string; options: never }>(
    'POST',
    '/v1/users/passkeys/options',
  );
  return { challenge_id, response: await startAuthentication({ optionsJSON: options }) };
}

/** Login step 1 with a passkey: the account's companies and a ticket for authenticatefinish (60 seconds). */
export async function passkeySignIn(): Promise<{ companies: Company[]; login_ticket: string }> {
  return request('POST', '/v1/users/passkeys/authenticate', { body: await passkeyAssertion() });
}

export { startRegistration };

/** What the browser's WebAuthn errors mean to the person (cancelled, no passkey, not allowed here). */
export function passkeyProblem(error: unknown): string | null {
  if (error instanceof ApiError) return null;
  const name = (error as { name?: string } | null)?.name;
  if (name === 'NotAllowedError') return 'The passkey prompt was cancelled or timed out.';
  if (name === 'InvalidStateError') return 'This device already holds a passkey for your account.';
  if (name === 'SecurityError') return 'Passkeys do not work on this address; open the page on its configured host.';
  return error instanceof Error ? error.message : 'The passkey could not be used.';
}
