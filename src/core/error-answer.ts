import type { ApiRequest } from './api-request.js'
import { jsonResponse, type ApiResponse } from './api-response.js'
import { isApiError } from './errors.js'
import { isStoreUnavailable } from './store-faults.js'
import { SERVER_ERROR_BODY } from './exception-handler.js'
import { patchVary } from './response-middleware.js'
import type { Settings } from './settings.js'

/**
 * The answer to a request whose `Host` header cannot form a URL (an adapter's translation
 * failed before any policy could run): Django's `400 Invalid Host header.`.
 */
export const INVALID_HOST_RESPONSE: ApiResponse = Object.freeze(jsonResponse(400, { detail: 'Invalid Host header.' }))

/**
 * The answer to an error thrown while serving `request`: the `exceptionHandler` setting's
 * rendering, or `500 {"detail": "A server error occurred."}`. A store fault answered 503 (a
 * driver's error or a `StoreUnavailable`) is reported to `logStoreFault`; every other error
 * that is not an `ApiError` to `logError`, and so is an exception handler that throws. `vary` (the headers the consulted schemes read) is merged
 * into the answer's `Vary`. Never throws.
 */
export function answerError(error: unknown, request: ApiRequest, settings: Settings, vary: readonly string[] = []): ApiResponse {
  const where = { method: request.method, path: request.url.pathname }
  let rendered: ApiResponse | null
  try {
    rendered = settings.exceptionHandler(error, { request, authentication: settings.authentication })
  } catch (handlerError) {
    settings.logError(handlerError, where)
    rendered = null
  }
  if (rendered?.status === 503 && isStoreUnavailable(error)) {
    // A store fault answered 503: one line per request (its stack once per outage), not a stack each.
    settings.logStoreFault(error, where)
  } else if (!isApiError(error)) {
    settings.logError(error, where)
  }
  const response = rendered ?? jsonResponse(500, SERVER_ERROR_BODY)
  return vary.length === 0 ? response : patchVary(response, vary)
}
