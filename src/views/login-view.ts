import type { AuthenticationScheme } from '../authentication/authentication-scheme.js'
import { enforceCsrf, resolveCsrfOptions } from '../authentication/csrf.js'
import { jsonResponse, type ApiResponse } from '../core/api-response.js'
import type { RequestContext, ViewOptions } from '../core/view.js'
import { AllowAny } from '../permissions/allow-any.js'
import type { SessionStore } from '../stores/session-store.js'
import type { UserStore } from '../stores/user-store.js'
import type { LoginFailureThrottle } from '../throttling/login-failure-throttle.js'
import type { Throttle } from '../throttling/throttle.js'
import { CREDENTIALS_SCHEMA } from './credentials-schema.js'
import { authenticateCredentials } from './authenticate-credentials.js'
import { resolveSessionCookies, type SessionCookieOptions } from './session-cookies.js'
import { sessionLogin } from './session-login.js'

/** Options for `loginView`. */
export interface LoginViewOptions extends SessionCookieOptions {
  /**
   * Checks the username and password (inactive users never authenticate); with
   * `sessionAuthHash`, the session keeps it so a later password change ends it.
   */
  readonly users: Pick<UserStore, 'authenticate' | 'sessionAuthHash' | 'canonicalUsername'>
  /** Where the new session is written (and the previous one deleted). */
  readonly sessions: Pick<SessionStore, 'save' | 'delete'>
  /** @default 'Login' */
  readonly name?: string
  /** @default the API's global schemes */
  readonly authentication?: readonly AuthenticationScheme[]
  /** Throttles of this view. Unlike the token view, login keeps the global ones unless given its own. @default the API's */
  readonly throttles?: readonly Throttle[]
  readonly throttleScope?: string
  /**
   * Counts failed password checks per username and client address; past its rate the view
   * answers 429 (right password included). Share one instance with Basic and the other views.
   * @default none
   */
  readonly loginFailures?: LoginFailureThrottle | undefined
}

/**
 * Session login. `POST` with `username` and `password` (JSON, urlencoded or multipart):
 * 1. the CSRF check runs for every request (cookie `csrftoken` plus a matching
 *    `X-CSRFToken` header or `csrfmiddlewaretoken` form field), since the caller has
 *    no session yet: `403 {"detail": "CSRF Failed: <reason>"}`;
 * 2. the credentials are checked like the token view's (`400` with DRF's field or
 *    `non_field_errors` messages);
 * 3. a new session is stored (any session the request carried is deleted, so a
 *    planted session key is never promoted), the CSRF secret is rotated (as Django's
 *    `login()` does), and the answer is `200 {"username": "<name>"}` with new
 *    `csrftoken` and `sessionid` cookies.
 *
 * @example
 * route('/api/auth/login/', api.view(loginView({ users, sessions })))
 */
export function loginView(options: LoginViewOptions): ViewOptions {
  const { users } = options
  const cookies = resolveSessionCookies(options)
  const csrf = resolveCsrfOptions(cookies.csrf)
  const session = sessionLogin(options)
  const post = async (ctx: RequestContext): Promise<ApiResponse> => {
    const req = ctx.request
    await enforceCsrf(req, csrf)
    const user = await authenticateCredentials(req, users, options.loginFailures)
    return jsonResponse(200, { username: user.username }, await session.login(req, user.id))
  }
  return {
    name: options.name ?? 'Login',
    handlers: {
      POST: Object.assign(post, {
        openApi: {
          description: `Starts a session (sets the \`${cookies.cookieName}\` cookie). Needs the CSRF token, as every unsafe session request.`,
          parameters: [
            {
              name: csrf.headerName,
              in: 'header',
              required: false,
              description: `The CSRF token (from the csrf view, or the \`${csrf.cookieName}\` cookie); or the \`${csrf.formField}\` form field.`,
              schema: { type: 'string' },
            },
          ],
          requestBody: CREDENTIALS_SCHEMA,
          response: { type: 'object', required: ['username'], properties: { username: { type: 'string' } } },
          ...(options.loginFailures === undefined ? {} : { errors: [429] }),
        },
      }),
    },
    permissions: [new AllowAny()],
    ...(options.throttles === undefined ? {} : { throttles: options.throttles }),
    ...(options.throttleScope === undefined ? {} : { throttleScope: options.throttleScope }),
    ...(options.authentication === undefined ? {} : { authentication: options.authentication }),
  }
}
