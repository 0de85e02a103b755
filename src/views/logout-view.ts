import type { AuthenticationScheme } from '../authentication/authentication-scheme.js'
import { emptyResponse, type ApiResponse } from '../core/api-response.js'
import type { RequestContext, ViewOptions } from '../core/view.js'
import { AllowAny } from '../permissions/allow-any.js'
import type { SessionStore } from '../stores/session-store.js'
import { expiredSessionCookieHeader, resolveSessionCookies, type SessionCookieOptions } from './session-cookies.js'

/** Options for `logoutView`. */
export interface LogoutViewOptions extends Pick<SessionCookieOptions, 'cookieName' | 'secure' | 'domain'> {
  readonly sessions: Pick<SessionStore, 'delete'>
  /** @default 'Logout' */
  readonly name?: string
  /**
   * Include `SessionAuthentication` (the default schemes usually do): it is what
   * makes a logged-in session's logout need a CSRF token.
   * @default the API's global schemes
   */
  readonly authentication?: readonly AuthenticationScheme[]
}

/**
 * Session logout. `POST`: deletes the stored session named by the session cookie and
 * expires that cookie; answers `204` with no body (also when there was no session).
 * CSRF is checked by `SessionAuthentication` in the pipeline, only for a request that
 * a live session authenticates, exactly as for any unsafe request of a session.
 *
 * @example
 * route('/api/auth/logout/', api.view(logoutView({ sessions })))
 */
export function logoutView(options: LogoutViewOptions): ViewOptions {
  const { sessions } = options
  const cookies = resolveSessionCookies(options)
  const post = async (ctx: RequestContext): Promise<ApiResponse> => {
    const req = ctx.request
    const key = req.cookie(cookies.cookieName)
    if (key === null) return emptyResponse(204)
    if (key !== '') await sessions.delete(key)
    return emptyResponse(204, [expiredSessionCookieHeader(req, cookies)])
  }
  return {
    name: options.name ?? 'Logout',
    handlers: { POST: Object.assign(post, { openApi: { status: 204, description: 'Ends the session named by the session cookie.' } }) },
    permissions: [new AllowAny()],
    // Django's logout flushes the session, which reads it: every answer varies with Cookie.
    vary: ['Cookie'],
    ...(options.authentication === undefined ? {} : { authentication: options.authentication }),
  }
}
