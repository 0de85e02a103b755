import { parseIp, type IpAddress } from './ip-address.js'

/** `::ffff:0:0/96`, under which an IPv4 address sits in the IPv6 space. */
const V4_MAPPED_PREFIX = Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff)

/** An address in the IPv6 space: IPv4 `a.b.c.d` as `::ffff:a.b.c.d`. */
function asIpv6(address: IpAddress): Uint8Array {
  if (address.family === 6) return address.bytes
  const bytes = new Uint8Array(16)
  bytes.set(V4_MAPPED_PREFIX)
  bytes.set(address.bytes, 12)
  return bytes
}

interface Range {
  readonly network: Uint8Array
  readonly prefix: number
}

function contains(range: Range, address: Uint8Array): boolean {
  const whole = range.prefix >> 3
  for (let i = 0; i < whole; i++) if (address[i] !== range.network[i]) return false
  const bits = range.prefix & 7
  if (bits === 0) return true
  const mask = (0xff << (8 - bits)) & 0xff
  return (address[whole]! & mask) === (range.network[whole]! & mask)
}

/**
 * A list of CIDR ranges, IPv4 and IPv6, answering "is this address in one of them" as
 * `node:net`'s `BlockList` does with `addSubnet` and `check`: both families live in one
 * IPv6 space (IPv4 as `::ffff:a.b.c.d`), so an IPv4 range holds the IPv4-mapped form of its
 * addresses and an IPv6 range such as `::ffff:0:0/96` holds IPv4 addresses; zone ids are ignored.
 */
export class IpRangeList {
  private readonly ranges: Range[] = []

  /**
   * Adds `address/prefix` (prefix in the address's own family: 0-32 for IPv4, 0-128 for IPv6).
   * @throws RangeError for text that is not an address or a prefix out of range.
   */
  addSubnet(address: string, prefix: number): void {
    const parsed = parseIp(address)
    const max = parsed?.family === 4 ? 32 : 128
    if (parsed === null || !Number.isInteger(prefix) || prefix < 0 || prefix > max) {
      throw new RangeError(`not an IP range: ${address}/${prefix}`)
    }
    this.ranges.push({ network: asIpv6(parsed), prefix: parsed.family === 4 ? 96 + prefix : prefix })
  }

  /** True when `address` (IPv4 or IPv6 text) is in one of the ranges; false for text that is not an address. */
  check(address: string): boolean {
    const parsed = parseIp(address)
    if (parsed === null) return false
    const bytes = asIpv6(parsed)
    return this.ranges.some((range) => contains(range, bytes))
  }
}
