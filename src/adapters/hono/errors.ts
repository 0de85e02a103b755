// Errors answered in DRF's shape on Hono: `app.onError`'s handler, DRF's 404, and
// @hono/node-server's handler for requests it cannot read.
import type { ErrorHandler } from 'hono'
import { HTTPException } from 'hono/http-exception'
import { DEFAULT_SETTINGS, jsonResponse, type Api } from '../../index.js'
import { errorResponse, INVALID_HOST_RESPONSE, WRITE_FAILED_RESPONSE } from '../../http/index.js'
import { checked, toResponse, webResponse } from './reply.js'
import { keptContext, toApiRequest } from './request.js'

/**
 * An `app.onError` handler answering every error in DRF's shape: an error of a guarded request
 * through the route's exception handler (with its `Vary`), any other error as a logged
 * `500 {"detail": "A server error occurred."}` (through `api`'s settings when given). A Hono
 * `HTTPException` the app threw keeps its own response.
 *
 * @example
 * app.onError(errorHandler(api))
 */
export function errorHandler(api?: Api): ErrorHandler {
  const settings = api?.settings ?? DEFAULT_SETTINGS
  return (error, c) => {
    if (error instanceof HTTPException) return error.getResponse()
    const scope = keptContext(c) ?? { request: toApiRequest(c), settings }
    return webResponse(checked(errorResponse(error, scope), scope.settings, c), scope.settings, c)
  }
}

const NOT_FOUND = jsonResponse(404, { detail: 'Not found.' })

/** DRF's `404 {"detail": "Not found."}` as Hono's not-found handler: `app.notFound(notFound)` (`drfRouting` sets it). */
export function notFound(): Response {
  return toResponse(NOT_FOUND)
}

/**
 * @hono/node-server's `errorHandler` option (`getRequestListener(app.fetch, { errorHandler: requestErrorHandler })`):
 * a request it cannot turn into a Web `Request` (a malformed `Host`, a backslash in the path)
 * is DRF's `400 {"detail": "Invalid Host header."}` rather than an empty 400; any other error
 * (the app's `fetch` threw) is a logged `500 {"detail": "A server error occurred."}` (an
 * `errorHandler` that returns nothing would leave the client waiting).
 */
export function requestErrorHandler(error: unknown): Response {
  if (error instanceof Error && error.name === 'RequestError') return toResponse(INVALID_HOST_RESPONSE)
  DEFAULT_SETTINGS.logError(error, { method: 'unknown', path: 'unknown' })
  return toResponse(WRITE_FAILED_RESPONSE)
}
