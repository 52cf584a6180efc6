/**
 * Pure URL policy (contract §6, 403 url_forbidden): which protocols, which network addresses and which
 * local paths a source may use. No I/O here: callers resolve names and real paths, then ask.
 */
import { isAbsolute, relative, sep } from 'node:path';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * Whether `url`'s scheme is in `allowed`. Entries may be written with or without the trailing colon
 * (`'http'` or `'http:'`); comparison ignores case.
 */
export function checkProtocol(url: URL, allowed: readonly string[]): boolean {
  const scheme = url.protocol.replace(/:$/, '').toLowerCase();
  return allowed.some((p) => p.replace(/:$/, '').toLowerCase() === scheme);
}

/** Parses an IP literal (brackets and an IPv6 zone are accepted); undefined when it is not one. */
function parseIp(ip: string): Address | undefined {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  // Only canonical literals: ipaddr.isValid also accepts "0x7f.1"-style forms that no resolver returns.
  if (!ipaddr.IPv4.isValidFourPartDecimal(bare) && !ipaddr.IPv6.isValid(bare)) return undefined;
  try {
    return ipaddr.parse(bare);
  } catch {
    return undefined;
  }
}

/** The IPv4 address carried in the last 32 bits of an IPv6 address. */
function low32(v6: ipaddr.IPv6): ipaddr.IPv4 {
  const p = v6.parts;
  return new ipaddr.IPv4([p[6]! >> 8, p[6]! & 0xff, p[7]! >> 8, p[7]! & 0xff]);
}

/** The IPv4 address a 6to4 address (2002:AABB:CCDD::/48) is built on. */
function sixToFour(v6: ipaddr.IPv6): ipaddr.IPv4 {
  const p = v6.parts;
  return new ipaddr.IPv4([p[1]! >> 8, p[1]! & 0xff, p[2]! >> 8, p[2]! & 0xff]);
}

function isPublicParsed(addr: Address): boolean {
  if (addr.kind() === 'ipv4') return addr.range() === 'unicast';
  const v6 = addr as ipaddr.IPv6;
  const range = v6.range();
  // Addresses that embed an IPv4 address are as public as the address they embed.
  if (range === 'ipv4Mapped' || range === 'rfc6145') return isPublicParsed(low32(v6));
  if (range === '6to4') return isPublicParsed(sixToFour(v6));
  if (range === 'rfc6052') {
    // Only the well-known NAT64 prefix 64:ff9b::/96 embeds a routable IPv4; 64:ff9b:1::/48 is local use.
    return v6.match(ipaddr.IPv6.parse('64:ff9b::'), 96) && isPublicParsed(low32(v6));
  }
  if (range !== 'unicast') return false;
  // Deprecated IPv4-compatible addresses (::a.b.c.d) are "unicast" to ipaddr but reach IPv4 hosts.
  if (v6.parts.slice(0, 6).every((x) => x === 0)) return false;
  return true;
}

/**
 * Whether `ip` is a public unicast address. Refused: loopback, RFC 1918 private, link-local,
 * carrier-grade NAT (100.64/10), unspecified, broadcast, multicast, reserved and documentation ranges,
 * IPv6 unique-local, deprecated site-local, discard, Teredo and the like, and IPv6 forms that embed a
 * refused IPv4 address (IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated, 6to4, NAT64, IPv4-compatible).
 * A string that is not an IP literal is not public.
 */
export function isPublicAddress(ip: string): boolean {
  const addr = parseIp(ip);
  return addr !== undefined && isPublicParsed(addr);
}

/** Parsed allow-list entries: the list is fixed at start, and every upstream connection checks it. */
const ranges = new Map<string, [Address, number] | undefined>();

/** Parses one allow-list entry: a CIDR range or a single address (as /32 or /128). */
function parseRange(entry: string): [Address, number] | undefined {
  if (ranges.has(entry)) return ranges.get(entry);
  const range = parseEntry(entry);
  if (ranges.size < 1024) ranges.set(entry, range);
  return range;
}

function parseEntry(entry: string): [Address, number] | undefined {
  const s = entry.trim();
  try {
    if (s.includes('/')) return ipaddr.parseCIDR(s);
    const addr = parseIp(s);
    return addr === undefined ? undefined : [addr, addr.kind() === 'ipv4' ? 32 : 128];
  } catch {
    return undefined;
  }
}

/**
 * Allow-list entries that are neither a CIDR range nor an address, for start-up validation of
 * `allowPrivateNetworks`. `addressAllowed` ignores such entries (they allow nothing).
 */
export function invalidCidrs(list: readonly string[]): string[] {
  return list.filter((e) => parseRange(e) === undefined);
}

/**
 * Whether a connection to `ip` is allowed (contract §6, §7). `true` allows every address, `false` only
 * public ones, and a list of CIDR ranges allows public addresses plus those ranges. An IPv4-mapped IPv6
 * address matches IPv4 ranges. A string that is not an IP literal is never allowed.
 */
export function addressAllowed(ip: string, allowPrivateNetworks: boolean | readonly string[]): boolean {
  const parsed = parseIp(ip);
  if (parsed === undefined) return false;
  if (allowPrivateNetworks === true) return true;
  if (isPublicParsed(parsed)) return true;
  if (allowPrivateNetworks === false) return false;
  const addr = parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
  return allowPrivateNetworks.some((entry) => {
    const range = parseRange(entry);
    return range !== undefined && range[0].kind() === addr.kind() && addr.match(range);
  });
}

/**
 * Whether `realPath` is one of `realRoots` or lies below one of them, comparing whole path segments
 * (`/data2/x` is not inside `/data`). Both sides must already be absolute real paths (realpath'd):
 * this function does not touch the disk, so it cannot see symlinks.
 */
export function insideRoots(realPath: string, realRoots: readonly string[]): boolean {
  if (!isAbsolute(realPath)) return false;
  return realRoots.some((root) => {
    if (!isAbsolute(root)) return false;
    const rel = relative(root, realPath);
    return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
  });
}
