// Errors answered in DRF's shape on node:http: unknown paths (404), errors of the app's own
// handlers, and the last resort for a bug, which never leaves a request unanswered.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { DEFAULT_SETTINGS, jsonResponse, type Api, type ApiResponse } from '../../index.js'
import { errorResponse, targetPath, WRITE_FAILED_RESPONSE, writeNodeResponse } from '../../http/index.js'
import { answer, sendApiResponse } from './reply.js'
import { keptContext, toApiRequest, type NodeHttpOptions } from './request.js'

/** DRF's 404 for a path no route matches. */
export const NOT_FOUND: ApiResponse = jsonResponse(404, { detail: 'Not found.' })

/**
 * A listener answering DRF's `404 {"detail": "Not found."}`, for the requests your own routing
 * found no handler for (`router` already answers unknown paths so).
 */
export function notFound(_req: IncomingMessage, res: ServerResponse): Promise<void> {
  return answer(res, NOT_FOUND)
}

/**
 * What a listener does with an error nothing else caught (a bug): logs it and answers 500, or
 * ends the connection when the headers are already out; never an unhandled rejection.
 */
export function lastResort(error: unknown, req: IncomingMessage, res: ServerResponse): void {
  DEFAULT_SETTINGS.logError(error, { method: req.method ?? 'GET', path: targetPath(req.url ?? '/') })
  if (res.headersSent) {
    res.destroy()
    return
  }
  for (const name of res.getHeaderNames()) res.removeHeader(name)
  writeNodeResponse(res, WRITE_FAILED_RESPONSE, DEFAULT_SETTINGS)
}

/** Answers an error in DRF's shape: what `errorHandler()` returns. */
export type NodeErrorHandler = (error: unknown, req: IncomingMessage, res: ServerResponse) => void

/**
 * Answers errors of the app's own handlers in DRF's shape, as the other adapters' error
 * handlers do: an error of a guarded request through the route's exception handler (with its
 * `Vary`), any other error as a logged `500 {"detail": "A server error occurred."}` (through
 * `api`'s settings when given). `policies()` already answers its handler's errors this way.
 *
 * @example
 * const onError = errorHandler(api)
 * createServer((req, res) => { handle(req, res).catch((error) => onError(error, req, res)) })
 */
export function errorHandler(api?: Api, options: NodeHttpOptions = {}): NodeErrorHandler {
  const settings = api?.settings ?? DEFAULT_SETTINGS
  return (error, req, res) => {
    if (res.headersSent) {
      settings.logError(error, { method: req.method ?? 'GET', path: req.url ?? '/' })
      res.destroy()
      return
    }
    sendApiResponse(res, errorResponse(error, keptContext(req) ?? { request: toApiRequest(req, options), settings }))
  }
}
