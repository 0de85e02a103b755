import { jsonResponse, serializeBody, type ApiResponse } from './api-response.js'
import { SERVER_ERROR_BODY } from './exception-handler.js'

/**
 * The answer an adapter sends when the response it was given cannot be written (a header HTTP
 * cannot carry, a status out of range, a body JSON cannot serialise): the bare
 * `500 {"detail": "A server error occurred."}`, the same bytes on every adapter.
 */
export const WRITE_FAILED_RESPONSE: ApiResponse = Object.freeze(jsonResponse(500, SERVER_ERROR_BODY))

// RFC 9110 §5.1 field-name (a token) and §5.5 field-value (VCHAR, obs-text, SP, HTAB): what
// Node's `setHeader` accepts, so every runtime refuses the headers Node would.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const NOT_FIELD_VALUE = /[^\t\x20-\x7e\x80-\xff]/

/** Why `response`'s status or headers cannot be sent, or `null`. */
export function unsendable(response: ApiResponse): Error | null {
  const { status } = response
  if (!Number.isInteger(status) || status < 100 || status > 999) return new Error(`gatehouse: cannot send status ${String(status)}`)
  for (const [name, value] of response.headers) {
    // The value is never quoted: it may carry a client's input or a secret.
    if (typeof name !== 'string' || !TOKEN.test(name)) return new Error('gatehouse: a response header name is not an HTTP token')
    if (typeof value !== 'string' || NOT_FIELD_VALUE.test(value)) return new Error(`gatehouse: response header "${name}" holds a value HTTP cannot carry`)
  }
  return null
}

/** A response as an adapter writes it: the body already text. */
export interface WireResponse {
  readonly status: number
  readonly headers: readonly (readonly [name: string, value: string])[]
  /** The body's text, or `undefined` for none. */
  readonly body: string | undefined
  /** Set when the response given could not be sent and this is `WRITE_FAILED_RESPONSE` instead: why (to log once). */
  readonly failure?: unknown
}

/** `WRITE_FAILED_RESPONSE` as written. */
export const WRITE_FAILED_WIRE: WireResponse = Object.freeze({ status: 500, headers: WRITE_FAILED_RESPONSE.headers, body: serializeBody(WRITE_FAILED_RESPONSE) })

/**
 * `response` ready to write: its body serialised and its status and headers checked. A
 * response no adapter could send (a header HTTP cannot carry, a status out of range, a body
 * JSON cannot serialise) becomes `WRITE_FAILED_RESPONSE` with the reason in `failure`, for the
 * adapter to log once: the same 500 on every framework and runtime, never a throw in the
 * middle of writing. Never throws.
 */
export function wireResponse(response: ApiResponse): WireResponse {
  const problem = unsendable(response)
  if (problem !== null) return { ...WRITE_FAILED_WIRE, failure: problem }
  let body: string | undefined
  try {
    body = serializeBody(response)
  } catch (error) {
    return { ...WRITE_FAILED_WIRE, failure: error }
  }
  return { status: response.status, headers: response.headers, body }
}
