/** Longest name kept, in characters (the `name` column is varchar(255)). */
export const MAX_FILE_NAME_LENGTH = 255;

// Bidi overrides and isolates make `cod.exe\u202Etxt` display as `codtxt.exe`; a name shown to staff must read
// as what it is.
const INVISIBLE = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff]/gu;

/**
 * The client's file name as something safe to store and show: no directory parts (either separator), no control
 * or bidi characters, at most {@link MAX_FILE_NAME_LENGTH} characters with the extension kept. The name is never
 * used on disk; stored files are named by uuid.
 */
export function sanitizeFileName(raw: string | undefined, fallback = 'file'): string {
  const base = (raw ?? '').normalize('NFC').split(/[\\/]/).pop() ?? '';
  const name = base.replace(/\s+/g, ' ').replace(INVISIBLE, '').trim();
  if (name === '' || /^\.+$/.test(name)) return fallback;
  const chars = Array.from(name);
  if (chars.length <= MAX_FILE_NAME_LENGTH) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? Array.from(name.slice(dot)) : [];
  if (extension.length === 0 || extension.length > 16) return chars.slice(0, MAX_FILE_NAME_LENGTH).join('');
  const stem = Array.from(name.slice(0, dot)).slice(0, MAX_FILE_NAME_LENGTH - extension.length);
  return [...stem, ...extension].join('');
}

const TOP_LEVEL_TYPES = new Set([
  'application',
  'audio',
  'font',
  'image',
  'message',
  'model',
  'multipart',
  'text',
  'video',
]);
// RFC 6838 restricted-name: what a registered subtype may contain, and no more than a column wants to hold.
const RESTRICTED_NAME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** `Image/PNG; charset=x` → `image/png`; anything that is not a plausible `type/subtype` → `null`. */
export function normalizeMediaType(raw: string | undefined): string | null {
  const [type, subtype, ...rest] = (raw ?? '').split(';')[0].trim().toLowerCase().split('/');
  if (rest.length > 0 || subtype === undefined || !TOP_LEVEL_TYPES.has(type)) return null;
  return RESTRICTED_NAME.test(subtype) ? `${type}/${subtype}` : null;
}

/** Bytes {@link sniffImageType} needs. */
export const SNIFF_BYTES = 12;

const startsWith = (head: Buffer, signature: string | number[], offset = 0) => {
  const bytes = typeof signature === 'string' ? Buffer.from(signature, 'latin1') : Buffer.from(signature);
  return head.length >= offset + bytes.length && head.subarray(offset, offset + bytes.length).equals(bytes);
};

const IMAGE_SIGNATURES: Array<{ contentType: string; extension: string; matches: (head: Buffer) => boolean }> = [
  { contentType: 'image/png', extension: 'png', matches: (head) => startsWith(head, '\x89PNG\r\n\x1a\n') },
  { contentType: 'image/jpeg', extension: 'jpg', matches: (head) => startsWith(head, [0xff, 0xd8, 0xff]) },
  {
    contentType: 'image/gif',
    extension: 'gif',
    matches: (head) => startsWith(head, 'GIF87a') || startsWith(head, 'GIF89a'),
  },
  {
    contentType: 'image/webp',
    extension: 'webp',
    matches: (head) => startsWith(head, 'RIFF') && startsWith(head, 'WEBP', 8),
  },
];

/**
 * The raster image type the first bytes prove, or `null`. A server's Content-Type is only a claim; these four
 * formats are the ones accepted from a URL (SVG, which can carry script, is not among them).
 */
export function sniffImageType(head: Buffer): { contentType: string; extension: string } | null {
  const found = IMAGE_SIGNATURES.find((signature) => signature.matches(head));
  return found ? { contentType: found.contentType, extension: found.extension } : null;
}
