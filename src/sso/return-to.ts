import { ApiError } from '../common/errors/api-error';

const refused = (message: string) => ApiError.validation(message, [{ field: 'return_to', message }]);

/**
 * Where the browser goes after the provider: a path of this service (`/admin`), or an origin of CORS_ORIGINS
 * followed by a path. Anything else would make the service an open redirector carrying login codes.
 */
export function checkedReturnTo(returnTo: string, corsOrigins: readonly string[]): string {
  if (returnTo.includes('#')) throw refused('return_to must not have a fragment');
  if (returnTo.startsWith('/')) {
    // `//host` and `/\host` are other hosts to a browser.
    if (returnTo.startsWith('//') || returnTo.includes('\\')) throw refused('return_to must be a path of this service');
    return returnTo;
  }
  let url: URL;
  try {
    url = new URL(returnTo);
  } catch {
    throw refused('return_to must be a path of this service or an origin of CORS_ORIGINS followed by a path');
  }
  if (!corsOrigins.includes(url.origin) || url.username || url.password) {
    throw refused('return_to must be a path of this service or an origin of CORS_ORIGINS followed by a path');
  }
  return url.toString();
}
