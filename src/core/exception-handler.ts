import type { ApiRequest } from './api-request.js'
import { jsonResponse, type ApiResponse } from './api-response.js'
import type { AuthenticationScheme } from './authentication-scheme.js'
import { AuthenticationFailed, isApiError, NotAuthenticated, ServiceUnavailable, Throttled, type ApiError, type ErrorHeader } from './errors.js'
import { isStoreUnavailable, STORE_UNAVAILABLE_DETAIL } from './store-faults.js'
import { patchVary } from './response-middleware.js'
import type { StoreFaultLogger } from './store-outage-log.js'
import type { User } from './user.js'

/** Receives server errors (never a secret: only error objects gatehouse did not render). */
export type ErrorLogger = (error: unknown, context: { readonly method: string; readonly path: string }) => void

/** What an exception handler knows about the failed request. */
export interface ExceptionContext {
  readonly request: ApiRequest
  /** The route's authentication schemes: the first one decides between 401 and 403. */
  readonly authentication: readonly AuthenticationScheme[]
  /**
   * The request's user once authentication finished (DRF's `context['request'].user`): the
   * anonymous user when no scheme claimed the request. Absent when the error came first (a
   * host or format refusal, a scheme's own failure such as a CSRF refusal).
   */
  readonly user?: User | undefined
}

/**
 * DRF's `EXCEPTION_HANDLER`: turns an error thrown anywhere in a guarded request into a
 * response, or returns `null` for an error it does not own (then it is logged with
 * `logError` and answered `500 {"detail": "A server error occurred."}`). A custom handler
 * usually calls {@link renderApiError} first and changes its result. Set it for the API
 * (`createApi({ exceptionHandler })`) or for one view or route (`exceptionHandler` in its
 * options, as a DRF view's `get_exception_handler`).
 *
 * @example
 * const exceptionHandler: ExceptionHandler = (error, ctx) => {
 *   const response = renderApiError(error, ctx)
 *   return response === null ? null : withHeaders(response, [['X-Error', 'yes']])
 * }
 */
export type ExceptionHandler = (error: unknown, ctx: ExceptionContext) => ApiResponse | null

/**
 * The default exception handler. Renders an `ApiError` as DRF does: `{"detail": message}`
 * (lists and dicts as-is), `WWW-Authenticate` from the route's *first* scheme for 401s, or a
 * 403 when that scheme has no challenge; `Retry-After` for throttles; then the error's own
 * `headers` (a `WWW-Authenticate` among them replaces the scheme's challenge). A store that is
 * down (database, Redis) is `503`. Returns `null` for anything else.
 */
export function renderApiError(error: unknown, ctx: ExceptionContext): ApiResponse | null {
  // A store that is down or slow is not a bug: 503, and the drivers reconnect by themselves.
  if (!isApiError(error)) return isStoreUnavailable(error) ? renderApiError(new ServiceUnavailable(STORE_UNAVAILABLE_DETAIL, 'store_unavailable'), ctx) : null
  const err: ApiError = error
  const body = typeof err.detail === 'string' ? { detail: err.detail } : err.detail
  // An error from an older copy of the package has no `headers`.
  const own: readonly ErrorHeader[] = (err as Partial<ApiError>).headers ?? []
  const headers: ErrorHeader[] = []
  let status = err.status
  // By class, or by code for a 401 from a second copy of the package (a permission's
  // custom `code` on a 403 must not pick up a challenge).
  const authError =
    err instanceof NotAuthenticated ||
    err instanceof AuthenticationFailed ||
    (err.status === 401 && (err.code === 'not_authenticated' || err.code === 'authentication_failed'))
  if (authError && !own.some(([name]) => name.toLowerCase() === 'www-authenticate')) {
    const challenge = ctx.authentication[0]?.authenticateHeader?.(ctx.request)
    if (challenge) headers.push(['WWW-Authenticate', challenge])
    else status = 403
  }
  if (err instanceof Throttled && err.wait !== null && err.wait > 0) {
    headers.push(['Retry-After', String(err.wait)])
  }
  return jsonResponse(status, body, own.length === 0 ? headers : [...headers, ...own])
}

/** The body of an unrendered error: never the error's own text (it may hold secrets). */
export const SERVER_ERROR_BODY = Object.freeze({ detail: 'A server error occurred.' })

/**
 * The answer to a request whose `Host` header cannot form a URL (an adapter's translation
 * failed before any policy could run): Django's `400 Invalid Host header.`.
 */
export const INVALID_HOST_RESPONSE: ApiResponse = Object.freeze(jsonResponse(400, { detail: 'Invalid Host header.' }))

/**
 * Where an error is answered. A guarded request's context (`RequestContext`)
 * is one as it is; before the policies ran, give the request and the route's settings.
 */
export interface ErrorScope {
  /** The request, or `null` when the adapter could not form its URL (answered `INVALID_HOST_RESPONSE`). */
  readonly request: ApiRequest | null
  /**
   * The route's settings (a `Settings`), of which the answer reads these: named by their shape
   * because `settings.ts` imports this file for its default `exceptionHandler`.
   */
  readonly settings: {
    readonly exceptionHandler: ExceptionHandler
    readonly authentication: readonly AuthenticationScheme[]
    readonly logError: ErrorLogger
    readonly logStoreFault: StoreFaultLogger
  }
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
