// Writing an `ApiResponse` to a node:http response (Express's included): one `writeHead`, one
// `end`, and never a throw.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ApiResponse } from '../../core/api-response.js'
import { targetPath } from '../../core/request/url-decoding.js'
import { WRITE_FAILED_WIRE, wireResponse, type WireResponse } from '../../core/sendable-response.js'
import { DEFAULT_SETTINGS, type Settings } from '../../core/settings.js'
import { keptContext } from './request.js'

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
 * Writes `response` to a node:http response (Express's included) and never throws: a response
 * HTTP cannot carry (a header value Node refuses, a body JSON cannot serialise) is answered
 * `500 {"detail": "A server error occurred."}` and logged once through `settings.logError`; an
 * error while writing ends the connection when the headers are already out.
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

/**
 * Writes an `ApiResponse` to a node:http response (each `Set-Cookie` on its own line) and never
 * throws: a response HTTP cannot carry (a header value Node refuses) is answered
 * `500 {"detail": "A server error occurred."}` and logged once (through the route's `logError`
 * when `policies()` ran on the request).
 */
export function sendApiResponse(res: ServerResponse, response: ApiResponse): void {
  writeNodeResponse(res, response, keptContext(res.req)?.settings ?? DEFAULT_SETTINGS)
}

/** A listener's settled promise: what every listener of ours returns once it answered synchronously. */
export const DONE: Promise<void> = Promise.resolve()

/** Writes `response` as `sendApiResponse` does; a listener returns what this returns. */
export function answer(res: ServerResponse, response: ApiResponse): Promise<void> {
  sendApiResponse(res, response)
  return DONE
}
