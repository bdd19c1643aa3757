import { ApiError } from '../../platform/common/errors/api-error';

const refused = (message: string) => ApiError.validation(message, [{ field: 'return_to', message }]);
const NOT_OURS = 'return_to must be a path of this service (/admin) or an origin of CORS_ORIGINS followed by a path';
/** Printable ASCII without the space: nothing a browser strips, folds or reads as a line break. */
const PRINTABLE = /^[\x21-\x7e]+$/;

/**
 * Where the browser goes after the provider, with a one-time code in the fragment: a path of this service
 * (`/admin`), or an origin of CORS_ORIGINS followed by a path. Judged as a browser judges a `Location`: by the
 * origin the WHATWG URL parser resolves it to against the service's public origin, after refusing what parsers
 * and browsers rewrite (tabs and line breaks are dropped, `\` is read as `/`, so `/\t/evil` and `/\evil` are
 * `//evil`). Anything else would make the service an open redirector carrying login codes. Answers the value as
 * given, which is what the `Location` header carries.
 */
export function checkedReturnTo(returnTo: string, serviceOrigin: string, corsOrigins: readonly string[]): string {
  if (!PRINTABLE.test(returnTo)) {
    throw refused('return_to must be printable ASCII: no space, tab, line break or other control character');
  }
  if (returnTo.includes('\\')) throw refused('return_to must not contain a backslash');
  if (returnTo.includes('#')) throw refused('return_to must not have a fragment');
  if (returnTo.startsWith('/')) {
    // `//host` is another host to a browser: a path starts with exactly one `/`.
    if (returnTo.startsWith('//') || new URL(returnTo, serviceOrigin).origin !== serviceOrigin) {
      throw refused(NOT_OURS);
    }
    return returnTo;
  }
  const origin = corsOrigins.find((candidate) => returnTo.startsWith(`${candidate}/`));
  if (origin === undefined || returnTo.startsWith(`${origin}//`)) throw refused(NOT_OURS);
  let url: URL;
  try {
    url = new URL(returnTo);
  } catch {
    throw refused(NOT_OURS);
  }
  if (url.origin !== origin || url.username !== '' || url.password !== '') throw refused(NOT_OURS);
  return returnTo;
}
