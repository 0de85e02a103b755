// Reading a Hono request as an `ApiRequest`: on @hono/node-server from node's own request as
// the other adapters read it, elsewhere from the Web `Request`; the body read once, within
// its limit, into Hono's body cache.
import type { Context } from 'hono'
import { PayloadTooLarge, type ApiRequest, type RequestContext, type User } from '../../index.js'
import { createApiRequest, requestUrlOf } from '../../http/index.js'
import { clientAddress, type ConnInfoReader } from './client-address.js'
import { incomingOf, type IncomingLike } from './node-server-request.js'

/** How the Hono adapter reads a request. */
export interface HonoOptions {
  /** Largest request body read, in bytes; a larger one answers 413. @default 1048576 (1 MiB) */
  readonly bodyLimit?: number
  /**
   * Reads the client's address (throttle identity, `request.remoteAddress`): Hono's
   * `getConnInfo` for the runtime, or your own. Without it the adapter reads
   * @hono/node-server's, `Bun.serve`'s and `Deno.serve`'s connection itself, and finds no
   * address elsewhere (e.g. Cloudflare Workers: pass `hono/cloudflare-workers`' `getConnInfo`).
   * @default the address @hono/node-server, Bun or Deno gives
   */
  readonly getConnInfo?: ConnInfoReader
  /** Path parameters to use instead of the matched route's (`c.req.param()`). */
  readonly params?: Readonly<Record<string, string>>
}

/**
 * What `policies()` puts on the context: `c.get('user')`, `c.get('auth')`, and the whole
 * request state as `c.get('gatehouse')`. Use as `new Hono<{ Variables: GatehouseVariables }>()`.
 */
export interface GatehouseVariables {
  user: User
  auth: unknown
  gatehouse: RequestContext
}

/** The Hono environment of a guarded app: `new Hono<GatehouseEnv>()`. */
export interface GatehouseEnv {
  Variables: GatehouseVariables
}

const DEFAULT_BODY_LIMIT = 1024 * 1024

/**
 * Reads the body once, failing with `PayloadTooLarge` past `limit` bytes (a declared
 * Content-Length is refused before reading; a chunked body stops at the limit). The bytes
 * go into Hono's body cache, so the app's own handler can still call `c.req.json()`.
 */
async function readBody(c: Context, limit: number): Promise<Uint8Array | null> {
  const declared = Number(c.req.header('content-length'))
  if (Number.isFinite(declared) && declared > limit) throw new PayloadTooLarge()
  const cache = c.req.bodyCache
  let bytes: Uint8Array
  if (Object.keys(cache).length > 0 || c.req.raw.body === null) {
    // Already read by someone else (or nothing to read): Hono's cache answers.
    bytes = new Uint8Array(await c.req.arrayBuffer())
    if (bytes.length > limit) throw new PayloadTooLarge()
  } else {
    const reader = c.req.raw.body.getReader()
    const chunks: Uint8Array[] = []
    let size = 0
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      size += value.length
      if (size > limit) {
        await reader.cancel().catch(() => undefined)
        throw new PayloadTooLarge()
      }
      chunks.push(value)
    }
    bytes = new Uint8Array(size)
    let offset = 0
    for (const chunk of chunks) {
      bytes.set(chunk, offset)
      offset += chunk.length
    }
    // Hono's cache holds promises at run time (its type says ArrayBuffer).
    Object.assign(cache, { arrayBuffer: Promise.resolve(bytes.buffer) })
  }
  return bytes.length === 0 ? null : bytes
}

/**
 * The absolute request URL by the rule every adapter follows: the path and query the runtime
 * parsed, on the origin of the `Host` header (an absolute-form target, `GET http://evil/x`,
 * which @hono/node-server makes the request's URL, does not change the host). `null` when the
 * Host header is not a bare `host[:port]`. On @hono/node-server it is built from the node
 * request as the node:http adapter builds it, without Hono's Web `Headers` (made on first use).
 */
function requestUrl(c: Context, incoming: IncomingLike | null): URL | null {
  if (incoming !== null) {
    const protocol = incoming.socket?.encrypted === true ? 'https' : 'http'
    return requestUrlOf(protocol, incoming.headers.host, incoming.url ?? '/')
  }
  const url = new URL(c.req.url)
  const host = c.req.raw.headers.get('host')
  if (host === null || host === url.host) return url
  return requestUrlOf(url.protocol.slice(0, -1), host, `${url.pathname}${url.search}`)
}

/**
 * Translates a Hono request into an `ApiRequest`: the request's headers (on
 * @hono/node-server, node's own, as the other adapters read them), the URL, the route's
 * parameters, the client's address (see `HonoOptions.getConnInfo`). The body is read only
 * when a policy or view asks for it. `null` when the Host header cannot form a URL (answer 400).
 */
export function toApiRequest(c: Context, options: HonoOptions = {}): ApiRequest | null {
  const incoming = incomingOf(c)
  const url = requestUrl(c, incoming)
  if (url === null) return null
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT
  return createApiRequest({
    method: c.req.method,
    url,
    headers: incoming === null ? c.req.raw.headers : incoming.headers,
    remoteAddress: clientAddress(c, options.getConnInfo),
    params: options.params ?? (c.req.param() as Record<string, string>),
    readBody: () => readBody(c, limit),
  })
}

/** The context `policies()` set on `c` (`c.get('gatehouse')`), or `undefined` when it did not run on the request. */
export function keptContext(c: Context): RequestContext | undefined {
  return (c as Context<GatehouseEnv>).get('gatehouse') as RequestContext | undefined
}
