import type { ApiRequest } from '../core/api-request.js'
import { ipFamily, parseIp } from '../core/net/ip-address.js'

/** The ident used when the peer address is unknown (an adapter without a socket). */
export const UNKNOWN_CLIENT = 'unknown'

/** The 16-bit groups of an IPv6 address (`::` expanded, a trailing dotted IPv4 as two groups); `null` if malformed. */
function ipv6Groups(address: string): number[] | null {
  // Whatever follows the first `%` is a zone id, and is dropped unread.
  const zone = address.indexOf('%')
  const parsed = parseIp(zone === -1 ? address : address.slice(0, zone))
  if (parsed?.family !== 6) return null
  const { bytes } = parsed
  return Array.from({ length: 8 }, (_, i) => (bytes[i * 2]! << 8) | bytes[i * 2 + 1]!)
}

/**
 * One client's identity from its address: `::ffff:1.2.3.4` (IPv4 on a dual-stack socket)
 * is `1.2.3.4`, and an IPv6 address stands for its whole `/ipv6Prefix` network (one
 * subscriber usually holds a /64, so per-address budgets would be endless).
 */
export function clientNetwork(address: string, ipv6Prefix = 64): string {
  if (address.toLowerCase().startsWith('::ffff:') && ipFamily(address.slice(7)) === 4) return address.slice(7)
  const groups = ipv6Groups(address)
  if (groups === null) return address
  const masked = groups.map((group, i) => {
    const bits = Math.max(0, Math.min(16, ipv6Prefix - i * 16))
    return bits === 0 ? 0 : group & ((0xffff << (16 - bits)) & 0xffff)
  })
  return `${masked.map((g) => g.toString(16)).join(':')}/${ipv6Prefix}`
}

/**
 * Identifies the client for throttling (DRF's `get_ident`).
 *
 * - `numProxies = 0` (gatehouse's default): the socket's peer address only.
 *   `X-Forwarded-For` is ignored, so a client cannot pick its own identity.
 * - `numProxies = n > 0`: `n` trusted proxies each append the address they saw
 *   to `X-Forwarded-For`, so the client is the `n`-th entry from the right (the
 *   leftmost one when there are fewer entries). Without the header, the peer
 *   address.
 *
 * DRF's own default (`NUM_PROXIES = None`) uses the whole client-sent header as
 * the ident, which lets any client buy a fresh budget by sending a new value;
 * gatehouse has no such mode. An empty selected entry falls back to the peer
 * address (DRF would use the empty string).
 *
 * IPv6 clients are grouped by their `/ipv6Prefix` network (default /64).
 *
 * @example
 * // X-Forwarded-For: 0.0.0.0, 1.1.1.1, 2.2.2.2
 * clientIdent(req, 1) // '2.2.2.2'
 * clientIdent(req, 2) // '1.1.1.1'
 */
export function clientIdent(req: ApiRequest, numProxies: number, ipv6Prefix = 64): string {
  const normalise = (address: string): string => clientNetwork(address, ipv6Prefix)
  const peer = req.remoteAddress === null || req.remoteAddress === '' ? UNKNOWN_CLIENT : normalise(req.remoteAddress)
  if (numProxies <= 0) return peer
  const forwarded = req.headers.get('x-forwarded-for')
  if (forwarded === null) return peer
  const addresses = forwarded.split(',')
  const chosen = addresses[addresses.length - Math.min(numProxies, addresses.length)]?.trim() ?? ''
  return chosen === '' ? peer : normalise(chosen)
}
