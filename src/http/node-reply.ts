// Writing an `ApiResponse` to a node:http response (Express's and Koa's included): one
// `writeHead`, one `end`, and never a throw.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ApiResponse } from '../core/api-response.js'
import { targetPath } from '../core/request/url-decoding.js'
import { WRITE_FAILED_WIRE, wireResponse, type WireResponse } from '../core/sendable-response.js'
import type { Settings } from '../core/settings.js'

/** Writes a checked response in one `writeHead` and one `end` (each `Set-Cookie` on its own line). */
function writeWire(res: ServerResponse, wire: WireResponse): void {
  const flat: (string | string[])[] = []
  let cookies: string[] | null = null
  for (const [name, value] of wire.headers) {
    if (name.length === 10 && name.toLowerCase() === 'set-cookie') (cookies ??= []).push(value)
    else flat.push(name, value)
  }
  // One entry for all cookies: writeHead merges pairs into headers set earlier by name.
  if (cookies !== null) flat.push('Set-Cookie', cookies)
  if (wire.body === undefined) {
    res.writeHead(wire.status, flat)
    res.end()
    return
  }
  flat.push('Content-Length', String(Buffer.byteLength(wire.body)))
  res.writeHead(wire.status, flat)
  res.end(wire.body)
}

/** Logs a response that could not be written, once, through the route's `logError`. */
function logWriteFailure(settings: Settings, req: IncomingMessage, error: unknown): void {
  try {
    settings.logError(error, { method: req.method ?? 'GET', path: targetPath(req.url ?? '/') })
  } catch {
    // A logger that throws must not turn a failed write into a crashed process.
  }
}

/**
 * Writes `response` to a node:http `ServerResponse` (Express's `res`, Koa's `ctx.res`): what
 * your adapter calls to send a view's or a refusal's answer when its framework runs on
 * node:http. Never throws: a response HTTP cannot carry (a header value Node refuses, a body
 * JSON cannot serialise) is answered `500 {"detail": "A server error occurred."}` and logged
 * once through `settings.logError` (the route's `Policies.settings` or the view's); an error
 * while writing ends the connection when the headers are already out.
 *
 * @example
 * writeNodeResponse(ctx.res, await view.handle(request), view.settings)
 */
export function writeNodeResponse(res: ServerResponse, response: ApiResponse, settings: Settings): void {
  const wire = wireResponse(response)
  if (wire.failure !== undefined) logWriteFailure(settings, res.req, wire.failure)
  try {
    writeWire(res, wire)
  } catch (error) {
    logWriteFailure(settings, res.req, error)
    if (res.headersSent) {
      res.destroy()
      return
    }
    for (const name of res.getHeaderNames()) res.removeHeader(name)
    try {
      writeWire(res, WRITE_FAILED_WIRE)
    } catch {
      res.destroy()
    }
  }
}
