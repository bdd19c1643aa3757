import { useEffect } from 'react';
import { type Account, ApiError, describeError } from './api';
import { exchangeSsoCode, ssoErrorText, ssoStartError, startSso, takeSsoFragment } from './sso-login';

/**
 * The login screen's single sign-on: on return from the identity provider, exchanges the fragment's one-time code
 * (or says why it failed); answers the function that starts a sign-in by e-mail or by company.
 */
export function useSsoSignIn(
  setAccount: (account: Account) => void,
  setBusy: (busy: boolean) => void,
  setError: (error: string | null) => void,
): (by: { email: string } | { company_id: number }) => Promise<void> {
  // Back from the identity provider: the fragment holds a one-time code (or why it failed).
  useEffect(() => {
    const back = takeSsoFragment();
    if (!back) return;
    if ('error' in back) return setError(ssoErrorText(back.error));
    setBusy(true);
    exchangeSsoCode(back.code).then(setAccount, (failure: unknown) => {
      setError(failure instanceof ApiError ? ssoErrorText(failure.code) : describeError(failure));
      setBusy(false);
    });
  }, [setAccount]);

  return async (by: { email: string } | { company_id: number }) => {
    setBusy(true);
    setError(null);
    try {
      await startSso(by);
    } catch (failure) {
      setError(ssoStartError(failure) ?? describeError(failure));
      setBusy(false);
    }
  };
}
