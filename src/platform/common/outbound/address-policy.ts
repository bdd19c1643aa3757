import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * What an IP address is, for the server-side fetch. Only `public` may be reached without the allow-list;
 * `metadata` and `invalid` never.
 */
export type AddressClass =
  | 'public'
  | 'private'
  | 'loopback'
  | 'link_local'
  | 'unique_local'
  | 'cgnat'
  | 'multicast'
  | 'unspecified'
  | 'metadata'
  | 'reserved'
  | 'invalid';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

// Instance-credential endpoints of the clouds (AWS IPv4/IPv6, ECS task role, Alibaba). They are link-local or
// CGNAT anyway; naming them keeps them refused even when an operator allow-lists a whole private range.
const METADATA_RANGES: Array<[Address, number]> = [
  ipaddr.parseCIDR('169.254.169.254/32'),
  ipaddr.parseCIDR('169.254.170.2/32'),
  ipaddr.parseCIDR('100.100.100.200/32'),
  ipaddr.parseCIDR('fd00:ec2::254/128'),
];

const IPV4_CLASSES: Partial<Record<string, AddressClass>> = {
  unicast: 'public',
  private: 'private',
  loopback: 'loopback',
  linkLocal: 'link_local',
  carrierGradeNat: 'cgnat',
  multicast: 'multicast',
  unspecified: 'unspecified',
};

const IPV6_CLASSES: Partial<Record<string, AddressClass>> = {
  unicast: 'public',
  uniqueLocal: 'unique_local',
  loopback: 'loopback',
  linkLocal: 'link_local',
  multicast: 'multicast',
  unspecified: 'unspecified',
};

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
// NAT64 (RFC 6052): a DNS64 resolver on an IPv6-only host answers 64:ff9b::a.b.c.d for the IPv4 host a.b.c.d, and
// the gateway connects there, so such an address is exactly as safe as the IPv4 address inside it.
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');

/**
 * The address a connection would really reach: IPv4-mapped (`::ffff:127.0.0.1`) and NAT64 addresses are the IPv4
 * address they carry, so they cannot smuggle a private IPv4 address past the IPv4 rules.
 */
function effective(address: Address): Address {
  if (address.kind() !== 'ipv6') return address;
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  if (!v6.match(NAT64_WELL_KNOWN)) return v6;
  const [high, low] = v6.parts.slice(6);
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function parse(raw: string): Address | null {
  const bare = raw.startsWith('[') && raw.endsWith(']') ? raw.slice(1, -1) : raw;
  // node:net decides what an IP is (strict dotted quads); ipaddr.js alone would also take `0x7f.1` or `127.1`.
  if (isIP(bare) === 0) return null;
  try {
    return effective(ipaddr.parse(bare));
  } catch {
    return null;
  }
}

function inRange(address: Address, [network, bits]: [Address, number]): boolean {
  return address.kind() === network.kind() && address.match(network, bits);
}

/**
 * Classifies one IP address (IPv4, IPv6, bracketed IPv6, IPv4-mapped). Default-deny: an IPv6 address outside
 * 2000::/3, or any address in a range the IANA special-purpose registries name (documentation, benchmarking,
 * 6to4, Teredo, ...), is `reserved`, never `public`.
 */
export function classifyAddress(raw: string): AddressClass {
  const address = parse(raw);
  if (address === null) return 'invalid';
  if (METADATA_RANGES.some((range) => inRange(address, range))) return 'metadata';
  if (address.kind() === 'ipv4') return IPV4_CLASSES[address.range()] ?? 'reserved';
  const v6Class = IPV6_CLASSES[address.range()] ?? 'reserved';
  return v6Class === 'public' && !inRange(address, GLOBAL_UNICAST_V6) ? 'reserved' : v6Class;
}

/**
 * Which addresses the image fetcher may connect to: public ones, plus whatever the allow-list names (host names,
 * IPs, CIDRs — `FILES_FETCH_ALLOWLIST`). Cloud metadata addresses are refused whatever the allow-list says.
 */
export class AddressPolicy {
  private readonly hosts = new Set<string>();
  private readonly ranges: Array<[Address, number]> = [];

  constructor(allowlist: readonly string[]) {
    for (const entry of allowlist) {
      const [ip, prefix] = entry.split('/');
      const address = parse(ip);
      if (address === null) {
        this.hosts.add(entry.toLowerCase());
      } else if (prefix === undefined) {
        this.ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
      } else {
        // Taken as written: an IPv4-mapped CIDR (`::ffff:10.0.0.0/104`) then matches nothing, which fails closed.
        this.ranges.push(ipaddr.parseCIDR(entry));
      }
    }
  }

  /**
   * `null` when `address`, reached under the host name `host`, may be connected to; otherwise the class that
   * refuses it.
   */
  refusal(address: string, host: string): Exclude<AddressClass, 'public'> | null {
    const kind = classifyAddress(address);
    if (kind === 'public') return null;
    if (kind === 'metadata' || kind === 'invalid') return kind;
    if (this.hosts.has(host.toLowerCase())) return null;
    const parsed = parse(address)!;
    return this.ranges.some((range) => inRange(parsed, range)) ? null : kind;
  }
}
