import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { allowlistTest, normalizeCidr } from './ip-allowlist';

const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((parts) => parts.join('.'));
const ipv6 = fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 }).map((parts) => new ipaddr.IPv6(parts).toString());
const mapped = ipv4.map((v4) => `::ffff:${v4}`);

/**
 * The reference: ipaddr.js's own matching, IPv4-mapped addresses taken as the IPv4 they carry, and an IPv4
 * address inside an IPv6 range that holds its mapped form (`::/0` is every address).
 */
function referenceMatch(ip: string, cidrs: string[]): boolean {
  let address = ipaddr.parse(ip);
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    address = (address as ipaddr.IPv6).toIPv4Address();
  }
  return cidrs.some((cidr) => {
    const range = ipaddr.parseCIDR(cidr);
    let network = range[0];
    let prefix = range[1];
    if (network.kind() === 'ipv6' && (network as ipaddr.IPv6).isIPv4MappedAddress() && prefix >= 96) {
      network = (network as ipaddr.IPv6).toIPv4Address();
      prefix -= 96;
    }
    if (network.kind() === address.kind()) return address.match(network, prefix);
    return network.kind() === 'ipv6' && (address as ipaddr.IPv4).toIPv4MappedAddress().match(network, prefix);
  });
}

/** A CIDR near `ip` (sharing a random prefix with it), so that both matches and misses are common. */
const cidrNear = (ip: string) =>
  fc.record({ bits: fc.nat(ip.includes(':') ? 128 : 32), flip: fc.boolean() }).map(({ bits, flip }) => {
    const parsed = ipaddr.parse(ip);
    const bytes = parsed.toByteArray();
    if (flip && bits < bytes.length * 8) {
      // Flip one bit inside the prefix, or just past it: a near miss or a near hit.
      const bit = Math.min(bits, bytes.length * 8 - 1);
      bytes[bit >> 3]! ^= 0x80 >> (bit & 7);
    }
    return `${ipaddr.fromByteArray(bytes).toString()}/${bits}`;
  });

describe('the ip_allowlist matcher (net.BlockList) against ipaddr.js', () => {
  it('agrees on random IPv4, IPv6 and IPv4-mapped addresses and lists near them', () => {
    const address = fc.oneof(ipv4, ipv6, mapped);
    fc.assert(
      fc.property(
        address.chain((ip) =>
          fc.tuple(
            fc.constant(ip),
            fc.array(
              fc.oneof(
                cidrNear(ip),
                cidrNear(ip).map((c) => c),
                address.chain(cidrNear),
              ),
              { minLength: 1, maxLength: 4 },
            ),
          ),
        ),
        ([ip, cidrs]) => {
          const normalized = cidrs.map((cidr) => normalizeCidr(cidr)!);
          expect(normalized.every((cidr) => cidr !== null)).toBe(true);
          expect(allowlistTest(normalized)!(ip)).toBe(referenceMatch(ip, cidrs));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('normalises to the network address, an address alone to its own network, a mapped network to IPv4', () => {
    expect(normalizeCidr('10.1.2.3/8')).toBe('10.0.0.0/8');
    expect(normalizeCidr(' 192.0.2.1 ')).toBe('192.0.2.1/32');
    expect(normalizeCidr('2001:DB8::1/32')).toBe('2001:db8::/32');
    expect(normalizeCidr('::1')).toBe('::1/128');
    expect(normalizeCidr('::ffff:192.0.2.0/120')).toBe('192.0.2.0/24');
    expect(normalizeCidr('0.0.0.0/0')).toBe('0.0.0.0/0');
  });

  it.each([
    '',
    '/8',
    '10.0.0.0/',
    '10.0.0.0/33',
    '10.0.0.0/-1',
    '10.0.0.0/8/8',
    '10.0.0',
    '0x0a.0.0.0/8',
    '1.2.3.4/08x',
  ])('refuses %j', (value) => expect(normalizeCidr(value)).toBeNull());

  it('an empty list allows anywhere; anything that is no address is outside a list', () => {
    expect(allowlistTest([])).toBeNull();
    const test = allowlistTest(['0.0.0.0/0'])!;
    expect(test('not an address')).toBe(false);
    expect(test('203.0.113.1')).toBe(true);
    expect(test('2001:db8::1')).toBe(false);
    expect(allowlistTest(['fe80::/10'])!('fe80::1%eth0')).toBe(true);
  });
});
