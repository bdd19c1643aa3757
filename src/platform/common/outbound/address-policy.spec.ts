import { AddressPolicy, classifyAddress } from './address-policy';

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['93.184.215.14', 'public'],
    ['1.1.1.1', 'public'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.0.0.2', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.1.1', 'link_local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
  ])('IPv4 %s → %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it.each([
    ['2606:4700:4700::1111', 'public'],
    ['2001:4860:4860::8888', 'public'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link_local'],
    ['fc00::1', 'unique_local'],
    ['fd12:3456:789a::1', 'unique_local'],
    ['ff02::1', 'multicast'],
    ['fd00:ec2::254', 'metadata'],
    ['[fd00:ec2::254]', 'metadata'],
    ['2001:db8::1', 'reserved'],
    ['2002:7f00:1::', 'reserved'],
    ['2001:0:4136:e378::1', 'reserved'],
    ['::7f00:1', 'reserved'],
    ['fec0::1', 'reserved'],
    ['4000::1', 'reserved'],
    ['100::1', 'reserved'],
  ])('IPv6 %s → %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['[::ffff:7f00:1]', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['::ffff:100.64.0.1', 'cgnat'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['64:ff9b::808:808', 'public'],
  ])('IPv4-mapped and NAT64 %s → %s (the IPv4 address inside decides)', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it.each([
    'localhost',
    'example.com',
    '',
    '127.1',
    '0x7f.0.0.1',
    '2130706433',
    '017700000001',
    '1.2.3',
    '::ffff:999.0.0.1',
  ])('refuses %p, which is not an address in canonical form, as invalid', (value) => {
    expect(classifyAddress(value)).toBe('invalid');
  });
});

describe('AddressPolicy', () => {
  it('allows public addresses and nothing else without an allow-list', () => {
    const policy = new AddressPolicy([]);
    expect(policy.refusal('8.8.8.8', 'dns.google')).toBeNull();
    expect(policy.refusal('2001:4860:4860::8888', 'dns.google')).toBeNull();
    expect(policy.refusal('127.0.0.1', 'localhost')).toBe('loopback');
    expect(policy.refusal('::ffff:10.0.0.1', 'intranet')).toBe('private');
    expect(policy.refusal('not-an-ip', 'x')).toBe('invalid');
  });

  it('allows listed IPs and CIDRs, matching IPv4-mapped addresses by their IPv4 address', () => {
    const policy = new AddressPolicy(['127.0.0.1', '10.20.0.0/16', 'fd00:1::/32']);
    expect(policy.refusal('127.0.0.1', '127.0.0.1')).toBeNull();
    expect(policy.refusal('::ffff:127.0.0.1', 'whatever')).toBeNull();
    expect(policy.refusal('127.0.0.2', '127.0.0.2')).toBe('loopback');
    expect(policy.refusal('10.20.3.4', 'images.internal')).toBeNull();
    expect(policy.refusal('10.21.0.1', 'images.internal')).toBe('private');
    expect(policy.refusal('fd00:1:2::3', 'v6.internal')).toBeNull();
    expect(policy.refusal('fd00:2::3', 'v6.internal')).toBe('unique_local');
  });

  it('allows every address of a listed host name, case-insensitively, and only for that name', () => {
    const policy = new AddressPolicy(['images.internal']);
    expect(policy.refusal('10.0.0.7', 'Images.Internal')).toBeNull();
    expect(policy.refusal('10.0.0.7', 'other.internal')).toBe('private');
  });

  it('never allows a metadata address, whatever the allow-list says', () => {
    const policy = new AddressPolicy(['169.254.0.0/16', 'metadata.google.internal', 'fd00::/8', '0.0.0.0/0']);
    expect(policy.refusal('169.254.169.254', 'metadata.google.internal')).toBe('metadata');
    expect(policy.refusal('::ffff:169.254.169.254', '169.254.169.254')).toBe('metadata');
    expect(policy.refusal('fd00:ec2::254', 'x')).toBe('metadata');
    expect(policy.refusal('169.254.1.1', 'x')).toBeNull();
  });
});
