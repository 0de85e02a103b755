// Answering with an `ApiResponse` on Hono: a Web `Response` (bare `application/json`, each
// `Set-Cookie` on its own), or the logged 500 when HTTP cannot carry it.
import type { Context } from 'hono'
import type { ContentfulStatusCode, StatusCode } from 'hono/utils/http-status'
import { DEFAULT_SETTINGS, type ApiResponse, type Settings } from '../../index.js'
import { WRITE_FAILED_RESPONSE, wireResponse } from '../../http/index.js'
import { keptContext } from './request.js'

/** A response as HTTP sends it: status, headers, body bytes (what `wireResponse` answers). */
type WireResponse = ReturnType<typeof wireResponse>

/** The 500 sent when an answer cannot be, as sendable parts. */
const WRITE_FAILED_WIRE: WireResponse = wireResponse(WRITE_FAILED_RESPONSE)

/** The response headers as Web `Headers` (each `Set-Cookie` appended on its own). */
function toHeaders(headers: WireResponse['headers']): Headers {
  const out = new Headers()
  for (const [name, value] of headers) out.append(name, value)
  return out
}

/**
 * The response headers as a `Response` takes them: a plain record when no name repeats (which
 * @hono/node-server writes with one `writeHead`, never making a `Headers`), else `Headers`.
 */
function headersInit(headers: WireResponse['headers']): Record<string, string> | Headers {
  const out: Record<string, string> = {}
  for (const [name, value] of headers) {
    const key = name.toLowerCase()
    if (Object.hasOwn(out, key)) return toHeaders(headers)
    out[key] = value
  }
  return out
}

/** `response` as sendable parts; what HTTP cannot carry is the 500, logged once through `settings`. */
export function checked(response: ApiResponse, settings: Settings, c: Context | null): WireResponse {
  const wire = wireResponse(response)
  if (wire.failure !== undefined) logFailure(settings, c, wire.failure)
  return wire
}

function logFailure(settings: Settings, c: Context | null, error: unknown): void {
  settings.logError(error, c === null ? { method: 'unknown', path: 'unknown' } : { method: c.req.method, path: c.req.path })
}

/** A Web `Response` from checked parts; a status a Web `Response` refuses (1xx, over 599) is the logged 500. */
export function webResponse(wire: WireResponse, settings: Settings, c: Context | null): Response {
  try {
    return new Response(wire.body ?? null, { status: wire.status, headers: headersInit(wire.headers) })
  } catch (error) {
    logFailure(settings, c, error)
    return new Response(WRITE_FAILED_WIRE.body ?? null, { status: WRITE_FAILED_WIRE.status, headers: toHeaders(WRITE_FAILED_WIRE.headers) })
  }
}

/**
 * Builds a Web `Response` from an `ApiResponse` (bare `application/json`, as DRF sends). A
 * response HTTP cannot carry (a header value Node refuses) is `500 {"detail": "A server error
 * occurred."}` instead, logged once.
 */
export function toResponse(response: ApiResponse): Response {
  return webResponse(checked(response, DEFAULT_SETTINGS, null), DEFAULT_SETTINGS, null)
}

/**
 * Answers a Hono handler with an `ApiResponse` (e.g. from `paginatedList`), keeping the
 * headers the app set with `c.header()`. A response HTTP cannot carry is the logged 500.
 */
export function sendApiResponse(c: Context, response: ApiResponse): Response {
  const settings = keptContext(c)?.settings ?? DEFAULT_SETTINGS
  let wire = checked(response, settings, c)
  if (wire.status < 200 || wire.status > 599) {
    logFailure(settings, c, new Error(`gatehouse: cannot send status ${wire.status}`))
    wire = WRITE_FAILED_WIRE
  }
  const headers = toHeaders(wire.headers)
  return wire.body === undefined
    ? c.body(null, { status: wire.status as StatusCode, headers })
    : c.body(wire.body, { status: wire.status as ContentfulStatusCode, headers })
}
