import { MAX_FILE_NAME_LENGTH, normalizeMediaType, sanitizeFileName, sniffImageType } from './file-metadata';

describe('sanitizeFileName', () => {
  it.each([
    ['report.pdf', 'report.pdf'],
    ['../../etc/passwd', 'passwd'],
    ['C:\\Users\\me\\report.pdf', 'report.pdf'],
    ['dir/sub\\mixed/name.txt', 'name.txt'],
    ['a\u0000b\u0007c\u001f\u007f.txt', 'abc.txt'],
    ['invoice\u202Efdp.exe', 'invoicefdp.exe'],
    ['\u200Ehidden\u2066mark\u2069.png', 'hiddenmark.png'],
    ['line\r\nbreak.txt', 'line break.txt'],
    ['  spaced   out  .txt ', 'spaced out .txt'],
    ['ảnh đại diện.jpg', 'ảnh đại diện.jpg'],
    ['..', 'file'],
    ['.', 'file'],
    ['dir/', 'file'],
    ['', 'file'],
    [undefined, 'file'],
  ])('%p → %p', (raw, expected) => {
    expect(sanitizeFileName(raw)).toBe(expected);
  });

  it('uses the fallback given for a name that is left empty', () => {
    expect(sanitizeFileName('\u0000', 'image.png')).toBe('image.png');
  });

  it('cuts a long name to the limit in characters, keeping a short extension', () => {
    const name = sanitizeFileName(`${'ả'.repeat(400)}.jpeg`);
    expect(Array.from(name)).toHaveLength(MAX_FILE_NAME_LENGTH);
    expect(name.endsWith('ả.jpeg')).toBe(true);
    expect(Array.from(sanitizeFileName('x'.repeat(300)))).toHaveLength(MAX_FILE_NAME_LENGTH);
    expect(sanitizeFileName(`${'x'.repeat(300)}.${'y'.repeat(40)}`)).toBe('x'.repeat(MAX_FILE_NAME_LENGTH));
  });
});

describe('normalizeMediaType', () => {
  it.each([
    ['image/png', 'image/png'],
    ['Image/PNG; charset=binary', 'image/png'],
    [
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    ],
    ['text/plain;charset=utf-8', 'text/plain'],
    ['image/svg+xml', 'image/svg+xml'],
  ])('%p → %p', (raw, expected) => {
    expect(normalizeMediaType(raw)).toBe(expected);
  });

  it.each([
    undefined,
    '',
    'png',
    'image/',
    '/png',
    'image/png/x',
    'x-custom/thing',
    'image/p ng',
    'image/<script>',
    `image/${'a'.repeat(200)}`,
  ])('refuses %p', (raw) => {
    expect(normalizeMediaType(raw)).toBeNull();
  });
});

describe('sniffImageType', () => {
  it.each([
    [Buffer.from('89504e470d0a1a0a0000000d', 'hex'), 'image/png'],
    [Buffer.from('ffd8ffe000104a4649460001', 'hex'), 'image/jpeg'],
    [Buffer.from('GIF89a\u0001\u0000\u0001\u0000', 'latin1'), 'image/gif'],
    [Buffer.from('GIF87a', 'latin1'), 'image/gif'],
    [Buffer.from('RIFF\u0024\u0000\u0000\u0000WEBPVP8 ', 'latin1'), 'image/webp'],
  ])('recognizes %p as %s', (head, contentType) => {
    expect(sniffImageType(head)?.contentType).toBe(contentType);
  });

  it.each([
    Buffer.from('<svg xmlns="http://www.w3.org/2000/svg">'),
    Buffer.from('<html>'),
    Buffer.from('RIFF\u0024\u0000\u0000\u0000WAVE', 'latin1'),
    Buffer.from('89504e47', 'hex'),
    Buffer.alloc(0),
  ])('refuses %p', (head) => {
    expect(sniffImageType(head)).toBeNull();
  });
});
