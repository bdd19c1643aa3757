/**
 * The sentence of a 401 that fits what the caller sent, so the hint points at the real mistake: a `Bearer`
 * prefix the source refuses, a client that sent an unset variable (`Authorization: undefined`), or a credential
 * that is simply not one of ours. Only fixed words are ever quoted back, never the header itself.
 */

const UNSET = /^(undefined|null|none|nan|\[object object\]|""|'')$/i;
const HOW = 'send the jwt of a login (POST /v1/users/authenticatefinish) or an API key (key:secret) as it is';

/** `error_jwt_is_required`: no header, or one holding nothing. */
export function missingHint(header: unknown): string {
  return typeof header === 'string'
    ? `The Authorization header is empty: ${HOW}.`
    : `This API needs an Authorization header: ${HOW}.`;
}

/** `error_jwt_hash_not_found`: the header is there, and names no live credential of this service. */
export function notFoundHint(header: unknown): string {
  const value = typeof header === 'string' ? header.trim() : '';
  if (/^bearer(\s|$)/i.test(value)) {
    return 'The credential is not valid: send the raw token or API key, without the Bearer prefix.';
  }
  const unset = UNSET.exec(value);
  if (unset) {
    return `The Authorization header says "${unset[1].toLowerCase()}", not a credential: the client sent a value it never set; ${HOW}.`;
  }
  return `The credential is not valid: it is malformed, unknown or was never issued by this service; ${HOW}.`;
}
