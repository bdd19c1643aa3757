// RFC 5987 attr-char: what may stand unencoded in an ext-value (`filename*`).
const ATTR_CHAR = /^[A-Za-z0-9!#$&+.^_`|~-]$/;

/** Printable ASCII, minus what a quoted-string would need escaped (`"`, `\`) or old browsers percent-decode (`%`). */
const FALLBACK_UNSAFE = /[^\x20-\x7e]|["\\%]/g;

/** `name` as an RFC 5987 ext-value: `UTF-8''` and every byte outside attr-char percent-encoded. */
function extValue(name: string): string {
  let encoded = "UTF-8''";
  for (const byte of Buffer.from(name, 'utf8')) {
    const char = String.fromCharCode(byte);
    encoded += byte < 0x80 && ATTR_CHAR.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded;
}

/**
 * `Content-Disposition: attachment` for a stored file (RFC 6266): a plain `filename` every client reads, and,
 * when the name is not plain ASCII or holds `"`, `\` or `%`, also `filename*` with the exact name, which
 * current browsers prefer. The fallback never needs escaping, so no client can read it differently.
 */
export function attachmentDisposition(name: string): string {
  const fallback = name.replace(FALLBACK_UNSAFE, '_');
  const header = `attachment; filename="${fallback}"`;
  return fallback === name ? header : `${header}; filename*=${extValue(name)}`;
}
