import type { ApiRequest } from './api-request.js'
import { jsonResponse, type ApiResponse } from './api-response.js'
import type { AuthenticationScheme } from '../authentication/authentication-scheme.js'
import { AuthenticationFailed, isApiError, NotAuthenticated, Throttled, type ApiError } from './errors.js'

/**
 * Renders an `ApiError` as DRF does: `{"detail": message}` (lists and dicts as-is),
 * `WWW-Authenticate` from the view's *first* scheme for 401s, or a 403 when that
 * scheme has no challenge; `Retry-After` for throttles. Returns `null` for anything else.
 */
export function renderApiError(
  error: unknown,
  req: ApiRequest,
  schemes: readonly AuthenticationScheme[],
): ApiResponse | null {
  if (!isApiError(error)) return null
  const err: ApiError = error
  const body = typeof err.detail === 'string' ? { detail: err.detail } : err.detail
  const headers: [string, string][] = []
  let status = err.status
  // By class, or by code for a 401 from a second copy of the package (a permission's
  // custom `code` on a 403 must not pick up a challenge).
  const authError =
    err instanceof NotAuthenticated ||
    err instanceof AuthenticationFailed ||
    (err.status === 401 && (err.code === 'not_authenticated' || err.code === 'authentication_failed'))
  if (authError) {
    const first = schemes[0]
    const challenge = first?.authenticateHeader?.(req)
    if (challenge) headers.push(['WWW-Authenticate', challenge])
    else status = 403
  }
  if (err instanceof Throttled && err.wait !== null && err.wait > 0) {
    headers.push(['Retry-After', String(err.wait)])
  }
  return jsonResponse(status, body, headers)
}

/** The body of an unrendered error: never the error's own text (it may hold secrets). */
export const SERVER_ERROR_BODY = Object.freeze({ detail: 'A server error occurred.' })
