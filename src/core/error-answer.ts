import type { ApiRequest } from './api-request.js'
import { jsonResponse, type ApiResponse } from './api-response.js'
import { isApiError, type ApiError } from './errors.js'
import { isStoreUnavailable } from './store-faults.js'
import { SERVER_ERROR_BODY } from './exception-handler.js'
import { patchVary } from './response-middleware.js'
import type { Settings } from './settings.js'
import type { User } from './user.js'

/**
 * The answer to a request whose `Host` header cannot form a URL (an adapter's translation
 * failed before any policy could run): Django's `400 Invalid Host header.`.
 */
export const INVALID_HOST_RESPONSE: ApiResponse = Object.freeze(jsonResponse(400, { detail: 'Invalid Host header.' }))

/**
 * Where an error is answered. A guarded request's context (`RequestState`, `RequestContext`)
 * is one as it is; before the policies ran, give the request and the route's settings.
 */
export interface ErrorScope {
  /** The request, or `null` when the adapter could not form its URL (answered `INVALID_HOST_RESPONSE`). */
  readonly request: ApiRequest | null
  /** The route's settings: its `exceptionHandler`, schemes, `logError` and `logStoreFault`. */
  readonly settings: Settings
  /** Request headers the answer depends on (what the consulted schemes read): merged into its `Vary`. */
  readonly vary?: readonly string[] | undefined
  /** The request's user, once authentication finished: the exception handler's `ctx.user`. */
  readonly user?: User | undefined
}

/**
 * The one answer to an error thrown while serving a request (DRF's `handle_exception`), used by
 * views, `Policies` and every adapter: the route's `exceptionHandler` renders it (an `ApiError` as
 * its status, detail and headers); what no handler owns is `500 {"detail": "A server error
 * occurred."}`, never the error's own text. A store fault answered 503 is reported to
 * `logStoreFault`; every other error that is not an `ApiError` to `logError`, once, and so is an
 * exception handler that throws. `scope.vary` is merged into the answer's `Vary`. Never throws.
 *
 * @example
 * // An adapter's error handler: a guarded request's context, else the request and the API's settings.
 * const response = errorResponse(error, context ?? { request: toApiRequest(req), settings: api.settings })
 */
export function errorResponse(error: unknown, scope: ErrorScope): ApiResponse {
  const { request, settings, vary } = scope
  if (request === null) return INVALID_HOST_RESPONSE
  const where = { method: request.method, path: request.url.pathname }
  let rendered: ApiResponse | null
  try {
    rendered = settings.exceptionHandler(error, { request, authentication: settings.authentication, user: scope.user })
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
  return vary === undefined || vary.length === 0 ? response : patchVary(response, vary)
}

/**
 * The answer to a request the framework refused before gatehouse read it (Express's body
 * parsers, Fastify's own request errors): `errorResponse`, except that a request whose URL
 * could not be formed still gets the refusal itself, not `INVALID_HOST_RESPONSE` (the framework
 * read the body first).
 */
export function refusalResponse(refusal: ApiError, scope: ErrorScope): ApiResponse {
  return scope.request === null ? jsonResponse(refusal.status, { detail: refusal.detail }) : errorResponse(refusal, scope)
}

/**
 * The answer to an error thrown while serving `request`.
 *
 * @deprecated Use `errorResponse(error, { request, settings, vary })`.
 */
export function answerError(error: unknown, request: ApiRequest, settings: Settings, vary: readonly string[] = []): ApiResponse {
  return errorResponse(error, { request, settings, vary })
}
