/**
 * The client's address on whichever server runs the Hono app. Each server hands Hono its
 * connection differently, as the second argument of `fetch` (`c.env`):
 * - @hono/node-server: `{ incoming, outgoing }`, the peer in `incoming.socket.remoteAddress`;
 * - `Bun.serve(app)` / `export default app` on Bun: the `Server`, asked by `server.requestIP(request)`;
 * - `Deno.serve(app.fetch)`: the handler info, the peer in `remoteAddr.hostname`.
 * Anything else (Cloudflare Workers, `app.request()` in tests) has no peer address: `null`,
 * which throttles count as one unknown client. An app on another server passes its own
 * reader (e.g. Hono's `getConnInfo` for that runtime) as the `getConnInfo` option.
 */
import type { Context } from 'hono'

/**
 * Reads the connection of a request, as Hono's `getConnInfo` helpers do (`hono/bun`,
 * `hono/deno`, `@hono/node-server/conninfo`, `hono/cloudflare-workers`): any of them fits.
 */
export type ConnInfoReader = (c: Context) => { readonly remote: { readonly address?: string | undefined } }

/** The part of a Bun `Server` read here. */
interface BunServer {
  requestIP(request: Request): { readonly address?: unknown } | null
}

/** The peer address in `env`, for the three servers above; `null` when `env` is none of them. */
function detected(env: unknown, request: Request): string | null {
  if (typeof env !== 'object' || env === null) return null
  const record = env as { incoming?: { socket?: { remoteAddress?: unknown } }; requestIP?: unknown; server?: unknown; remoteAddr?: { hostname?: unknown } }
  if (record.incoming !== undefined) return stringOrNull(record.incoming?.socket?.remoteAddress)
  // Hono's own Bun helper also accepts `{ server }` as the env.
  const server = typeof record.requestIP === 'function' ? record : (record.server as { requestIP?: unknown } | undefined)
  if (typeof server?.requestIP === 'function') return stringOrNull((server as BunServer).requestIP(request)?.address)
  // Deno: a Unix-socket listener's remoteAddr has a path and no hostname.
  if (typeof record.remoteAddr === 'object' && record.remoteAddr !== null) return stringOrNull(record.remoteAddr.hostname)
  return null
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null
}

/**
 * The client's address: from `getConnInfo` when given, else read from the server's
 * connection object (@hono/node-server, Bun, Deno); `null` when there is none.
 */
export function clientAddress(c: Context, getConnInfo?: ConnInfoReader): string | null {
  if (getConnInfo !== undefined) return stringOrNull(getConnInfo(c).remote.address)
  return detected(c.env, c.req.raw)
}
