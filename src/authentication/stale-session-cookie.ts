import type { ApiRequest } from '../core/api-request.js'
import { withHeaders, type ApiResponse } from '../core/api-response.js'
import { patchVary, type ResponseMiddleware } from '../core/response-middleware.js'
import { deletedCookie, type DeletedCookieOptions } from '../core/deleted-cookie.js'
import type { SessionAuthentication } from './session-authentication.js'

/** Options for `StaleSessionCookie`. */
export interface StaleSessionCookieOptions extends DeletedCookieOptions {
  /** The scheme that reads the session cookie (its `cookieName` is the cookie deleted). */
  readonly session: Pick<SessionAuthentication, 'cookieName' | 'foundNoSession'>
}

/** Django's `SessionStore._validate_session_key`: a key shorter than 8 characters is no key. */
const MIN_SESSION_KEY_LENGTH = 8

/**
 * Django's session middleware on the way out: a session cookie that holds no session is
 * deleted, so a browser stops sending it. That is a cookie whose value cannot be a session
 * key (empty, `garbage`: shorter than 8 characters, on any view), or one the session scheme
 * looked up without finding a live session (unknown, expired, deleted). The answer gets
 * Django's exact `Set-Cookie` (`sessionid=""; expires=Thu, 01 Jan 1970 00:00:00 GMT;
 * Max-Age=0; Path=/; SameSite=Lax`) and `Vary: Cookie`. An answer that sets the cookie itself
 * (login, logout) is left alone. Put it in the `responseMiddleware` setting.
 *
 * @example
 * const session = new SessionAuthentication({ sessions, users })
 * createApi({ authentication: [session], responseMiddleware: [new StaleSessionCookie({ session })] })
 */
export class StaleSessionCookie implements ResponseMiddleware {
  private readonly options: StaleSessionCookieOptions

  constructor(options: StaleSessionCookieOptions) {
    this.options = options
  }

  process(req: ApiRequest, response: ApiResponse): ApiResponse {
    const name = this.options.session.cookieName
    const key = req.cookie(name)
    if (key === null || setsCookie(response, name)) return response
    // Python counts code points.
    if ([...key].length >= MIN_SESSION_KEY_LENGTH && !this.options.session.foundNoSession(req)) return response
    const { path, domain, sameSite } = this.options
    const deletion = deletedCookie(name, { ...(path === undefined ? {} : { path }), ...(domain === undefined ? {} : { domain }), ...(sameSite === undefined ? {} : { sameSite }) })
    return patchVary(withHeaders(response, [['Set-Cookie', deletion]]), ['Cookie'])
  }
}

function setsCookie(response: ApiResponse, name: string): boolean {
  return response.headers.some(([header, value]) => header.toLowerCase() === 'set-cookie' && value.startsWith(`${name}=`))
}
