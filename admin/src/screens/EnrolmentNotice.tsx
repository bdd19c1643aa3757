import type { MouseEvent } from 'react';
import { Alert } from '../components';
import { logOut } from '../session';

/** A link to a section of the Account screen: the hash keeps the screen, the section is scrolled to. */
function SectionLink({ section, children }: { section: string; children: string }) {
  const open = (event: MouseEvent) => {
    event.preventDefault();
    if (window.location.hash !== '#/account') window.location.hash = '#/account';
    // The screen may render on the next frame (a hash change).
    window.requestAnimationFrame(() => document.getElementById(section)?.scrollIntoView({ block: 'start' }));
  };
  return (
    <a href="#/account" onClick={open}>
      {children}
    </a>
  );
}

/**
 * The company requires a second factor and this login proved none (docs/contract.md, `restricted`): the service
 * answers nothing but one's own account's second-factor routes until one is set up and the person logs in again.
 */
export function EnrolmentNotice() {
  return (
    <Alert tone="warning">
      <strong>Your company requires a second factor.</strong> Until you set one up, this login can do nothing else:{' '}
      <SectionLink section="totp-title">set up two-step verification</SectionLink> with an authenticator app or{' '}
      <SectionLink section="passkeys-title">add a passkey</SectionLink>, then{' '}
      <button className="button button-link button-inline" type="button" onClick={() => void logOut()}>
        log in again
      </button>{' '}
      with it.
    </Alert>
  );
}
