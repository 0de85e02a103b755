import type { IncomingMessage, OutgoingHttpHeaders, RequestListener, ServerResponse } from 'node:http'

/** Statuses that never carry a body, so never a Content-Type (DRF's 204 has none). */
const BODILESS = new Set([204, 304])

type WriteHead = ServerResponse['writeHead']

/**
 * Wraps a node:http request listener that serves a Hono app (`getRequestListener(app.fetch)`
 * of `@hono/node-server`) so a 204 or 304 answer goes out without `Content-Type`:
 * `@hono/node-server` adds `text/plain; charset=UTF-8` to every answer that has none, where
 * DRF (and gatehouse on the other frameworks) sends none on an answer without a body.
 *
 * @example
 * createServer(withoutBodilessContentType(getRequestListener(app.fetch))).listen(8000)
 */
export function withoutBodilessContentType(listener: RequestListener): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const writeHead: WriteHead = res.writeHead.bind(res)
    res.writeHead = ((statusCode: number, ...rest: unknown[]) => {
      if (BODILESS.has(statusCode)) {
        res.removeHeader('content-type')
        for (const part of rest) {
          if (typeof part !== 'object' || part === null || Array.isArray(part)) continue
          const headers = part as OutgoingHttpHeaders
          for (const name of Object.keys(headers)) if (name.toLowerCase() === 'content-type') delete headers[name]
        }
      }
      return (writeHead as (code: number, ...args: unknown[]) => ServerResponse)(statusCode, ...rest)
    }) as WriteHead
    return listener(req, res)
  }
}
