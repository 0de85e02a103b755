// Writing an `ApiResponse` to a node:http response: the kit's `writeNodeResponse`, with the
// settings of the route `policies()` guarded (one `writeHead`, one `end`, never a throw).
import type { ServerResponse } from 'node:http'
import { DEFAULT_SETTINGS, type ApiResponse } from '../../index.js'
import { writeNodeResponse } from '../../http/index.js'
import { keptContext } from './request.js'

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
