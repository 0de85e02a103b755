import { csrfSecretOf, maskCsrfSecret, newCsrfSecret } from '../authentication/csrf.js'
import { loginSessionData } from '../authentication/session-auth-hash.js'
import type { ApiRequest } from '../core/api-request.js'
import type { UserId } from '../core/user.js'
import type { SessionStore } from '../stores/session-store.js'
import type { UserStore } from '../stores/user-store.js'
import { csrfCookieHeader, expiredSessionCookieHeader, newSessionKey, resolveSessionCookies, sessionCookieHeader, type SessionCookieOptions } from './session-cookies.js'

type Header = readonly [name: string, value: string]

/** Options for `sessionLogin`: the stores and the cookies (the same as `SessionAuthentication`'s and `loginView`'s). */
export interface SessionLoginOptions extends SessionCookieOptions {
  /** Whose session auth hash a new session keeps, so a later password change ends it. */
  readonly users: Pick<UserStore, 'sessionAuthHash'>
  /** Where sessions are written and deleted. */
  readonly sessions: Pick<SessionStore, 'save' | 'delete'>
}

/** A CSRF token for a page or a script, and the cookie to set with it. */
export interface CsrfToken {
  /** A masked token (a new one per call, BREACH-safe): a form's hidden field, or `X-CSRFToken`. */
  readonly token: string
  /** `Set-Cookie` for a new secret when the request carried no valid one; else none. */
  readonly headers: readonly Header[]
}

/** Django's `get_token`, `login` and `logout`, for session views and pages of your own. */
export interface SessionLogin {
  /** Django's `get_token(request)`: the token the request's CSRF secret gives, or a new secret's. */
  csrfToken(req: ApiRequest): CsrfToken
  /**
   * Django's `login(request, user)`: deletes the session the request named (a planted session
   * key is never promoted), saves a new one for `userId` with the user's session auth hash, and
   * answers the cookies to send: a new CSRF secret (rotated, as Django's `login` does), then the
   * new session.
   */
  login(req: ApiRequest, userId: UserId): Promise<readonly Header[]>
  /** Django's `logout(request)`: deletes the session the request names; answers the cookie that drops it. */
  logout(req: ApiRequest): Promise<readonly Header[]>
}

/**
 * What a login page of your own needs besides `SessionAuthentication`: a CSRF token for its
 * form, a session started and ended. The cookie options are checked once, here.
 *
 * @example
 * const sessionsLogin = sessionLogin({ users, sessions })
 * // in a handler, after checking the password:
 * return emptyResponse(303, [['Location', '/'], ...(await sessionsLogin.login(ctx.request, user.id))])
 * @throws RangeError for a `maxAge` or `csrfMaxAge` that is not a positive integer.
 */
export function sessionLogin(options: SessionLoginOptions): SessionLogin {
  const { users, sessions } = options
  const cookies = resolveSessionCookies(options)
  const drop = async (req: ApiRequest): Promise<void> => {
    const key = req.cookie(cookies.cookieName)
    if (key !== null && key !== '') await sessions.delete(key)
  }
  return Object.freeze({
    csrfToken(req: ApiRequest): CsrfToken {
      const existing = csrfSecretOf(req.cookie(cookies.csrfCookieName))
      if (existing !== null) return { token: maskCsrfSecret(existing), headers: [] }
      const secret = newCsrfSecret()
      return { token: maskCsrfSecret(secret), headers: [csrfCookieHeader(secret, req, cookies)] }
    },
    async login(req: ApiRequest, userId: UserId): Promise<readonly Header[]> {
      await drop(req)
      const key = newSessionKey()
      const data = await loginSessionData(users, userId)
      await sessions.save(key, { userId, data, expiresAt: new Date(Date.now() + cookies.maxAge * 1000) })
      return [csrfCookieHeader(newCsrfSecret(), req, cookies), sessionCookieHeader(key, req, cookies)]
    },
    async logout(req: ApiRequest): Promise<readonly Header[]> {
      await drop(req)
      return [expiredSessionCookieHeader(req, cookies)]
    },
  })
}
