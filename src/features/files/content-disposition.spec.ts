import { attachmentDisposition } from './content-disposition';

/** How a client reads `filename*` back: RFC 5987's ext-value decoded as UTF-8. */
const decodeExtValue = (header: string) => {
  const match = /filename\*=UTF-8''([^;]+)$/.exec(header);
  return match ? decodeURIComponent(match[1]) : null;
};

describe('attachmentDisposition', () => {
  it('quotes a plain ASCII name and adds nothing else', () => {
    expect(attachmentDisposition('report q3.pdf')).toBe('attachment; filename="report q3.pdf"');
  });

  it.each([
    [
      'ảnh đại diện.jpg',
      'attachment; filename="_nh __i di_n.jpg"; filename*=UTF-8\'\'%E1%BA%A3nh%20%C4%91%E1%BA%A1i%20di%E1%BB%87n.jpg',
    ],
    ['say "hi".txt', 'attachment; filename="say _hi_.txt"; filename*=UTF-8\'\'say%20%22hi%22.txt'],
    ['back\\slash.txt', 'attachment; filename="back_slash.txt"; filename*=UTF-8\'\'back%5Cslash.txt'],
    ['100%25.txt', 'attachment; filename="100_25.txt"; filename*=UTF-8\'\'100%2525.txt'],
    ["it's (1);a=b.txt", 'attachment; filename="it\'s (1);a=b.txt"'],
  ])('encodes %p', (name, header) => {
    expect(attachmentDisposition(name)).toBe(header);
  });

  it.each(['ảnh đại diện.jpg', 'say "hi".txt', "x'*();,=%.bin", '日本語 レポート.pdf', 'emoji 📄.txt'])(
    'gives back %p exactly through filename*, and a fallback of printable ASCII without quotes',
    (name) => {
      const header = attachmentDisposition(name);
      expect(decodeExtValue(header)).toBe(name);
      const fallback = /filename="([^"]*)"/.exec(header)![1];
      expect(fallback).toMatch(/^[\x20-\x7e]*$/);
      expect(fallback).not.toMatch(/["\\%]/);
      // Nothing but the two parameters: a name can never add one of its own.
      expect(header.replace(/filename="[^"]*"/, '').replace(/filename\*=[^;]*$/, '')).toBe('attachment; ; ');
    },
  );
});
