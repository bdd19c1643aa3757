import { BlockList } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The most CIDRs one company's list may hold. */
export const MAX_ALLOWLIST_ENTRIES = 100;

/**
 * A CIDR as saved: the network address and prefix (`10.1.2.3/8` → `10.0.0.0/8`), an address alone as its own
 * network (`/32`, `/128`), and an IPv4-mapped IPv6 network (`::ffff:10.0.0.0/104`) as the IPv4 one it maps
 * (`10.0.0.0/8`), since a client reaching a dual-stack socket over IPv4 is matched as IPv4. `null`: not a CIDR
 * (IPv4 only in four-part decimal; no zone ids).
 */
export function normalizeCidr(value: string): string | null {
  const [address, prefixText, extra] = value.trim().split('/');
  if (extra !== undefined || address === undefined) return null;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return null;
  if (ipaddr.IPv4.isValidFourPartDecimal(address)) {
    const prefix = prefixText === undefined ? 32 : Number(prefixText);
    if (prefix > 32) return null;
    return `${ipaddr.IPv4.networkAddressFromCIDR(`${address}/${prefix}`).toString()}/${prefix}`;
  }
  if (address.includes('%') || !ipaddr.IPv6.isValid(address)) return null;
  const prefix = prefixText === undefined ? 128 : Number(prefixText);
  if (prefix > 128) return null;
  const parsed = ipaddr.IPv6.parse(address);
  if (parsed.isIPv4MappedAddress() && prefix >= 96) {
    const v4 = parsed.toIPv4Address().toString();
    return `${ipaddr.IPv4.networkAddressFromCIDR(`${v4}/${prefix - 96}`).toString()}/${prefix - 96}`;
  }
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${address}/${prefix}`).toString()}/${prefix}`;
}

/** Whether a client address is inside a list; compiled once per distinct list and shared. */
export type AddressTest = (ip: string) => boolean;

const compiled = new Map<string, AddressTest>();
const MAX_COMPILED = 1024;

/**
 * The test of a saved (normalised) list, or `null` for an empty list (anywhere). Node's native BlockList does
 * the matching: one call per request, no allocation. `::ffff:a.b.c.d` (IPv4 through a dual-stack socket) is
 * matched as `a.b.c.d`, and an IPv4 address is inside an IPv6 range that holds its mapped form (`::/0` is every
 * address); anything that is no address is outside.
 */
export function allowlistTest(cidrs: readonly string[]): AddressTest | null {
  if (cidrs.length === 0) return null;
  const key = cidrs.join(',');
  let test = compiled.get(key);
  if (test === undefined) {
    test = compile(cidrs);
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(key, test);
  }
  return test;
}

function compile(cidrs: readonly string[]): AddressTest {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address, prefix] = cidr.split('/');
    list.addSubnet(address!, Number(prefix), address!.includes(':') ? 'ipv6' : 'ipv4');
  }
  return (ip) => {
    try {
      if (!ip.includes(':')) return list.check(ip, 'ipv4');
      const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
      if (mapped) return list.check(mapped[1]!, 'ipv4');
      const zone = ip.indexOf('%');
      return list.check(zone === -1 ? ip : ip.slice(0, zone), 'ipv6');
    } catch {
      return false;
    }
  };
}
