import type { ApiRequest } from '../core/api-request.js'

/** The ident used when the peer address is unknown (an adapter without a socket). */
const UNKNOWN = 'unknown'

/** `::ffff:1.2.3.4` (IPv4 on a dual-stack socket) is the same client as `1.2.3.4`. */
function normalise(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)
  return mapped?.[1] ?? address
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
 * @example
 * // X-Forwarded-For: 0.0.0.0, 1.1.1.1, 2.2.2.2
 * clientIdent(req, 1) // '2.2.2.2'
 * clientIdent(req, 2) // '1.1.1.1'
 */
export function clientIdent(req: ApiRequest, numProxies: number): string {
  const peer = req.remoteAddress === null || req.remoteAddress === '' ? UNKNOWN : normalise(req.remoteAddress)
  if (numProxies <= 0) return peer
  const forwarded = req.headers.get('x-forwarded-for')
  if (forwarded === null) return peer
  const addresses = forwarded.split(',')
  const chosen = addresses[addresses.length - Math.min(numProxies, addresses.length)]?.trim() ?? ''
  return chosen === '' ? peer : normalise(chosen)
}
