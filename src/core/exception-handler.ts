import type { ApiRequest } from './api-request.js'
import { jsonResponse, type ApiResponse } from './api-response.js'
import type { AuthenticationScheme } from './authentication-scheme.js'
import { AuthenticationFailed, isApiError, NotAuthenticated, ServiceUnavailable, Throttled, type ApiError, type ErrorHeader } from './errors.js'
import { isStoreUnavailable, STORE_UNAVAILABLE_DETAIL } from './store-faults.js'
import type { User } from './user.js'

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
