import type { ApiRequest } from '../core/api-request.js'
import type { SessionStore } from '../stores/session-store.js'
import type { UserStore } from '../stores/user-store.js'
import type { Authenticated, AuthenticationScheme } from './authentication-scheme.js'
import { CSRF_SAFE_METHODS, enforceCsrf, resolveCsrfOptions, type CsrfOptions, type ResolvedCsrfOptions } from './csrf.js'

/** Options for `SessionAuthentication`. */
export interface SessionAuthenticationOptions {
  readonly sessions: Pick<SessionStore, 'get'>
  readonly users: Pick<UserStore, 'findById'>
  /** Session cookie name. @default 'sessionid' */
  readonly cookieName?: string
  /** CSRF cookie, header, form field and trusted origins (Django's defaults). */
  readonly csrf?: CsrfOptions
}

/**
 * The session of the host website: the `sessionid` cookie names a stored session.
 * Anonymous or inactive sessions are "not attempted" (no CSRF needed); an active
 * session user's unsafe request must pass the CSRF check (403 otherwise). No
 * challenge header, so unauthenticated denials are 403 when this scheme is first.
 */
export class SessionAuthentication implements AuthenticationScheme<null> {
  readonly name: string = 'SessionAuthentication'
  /** The answer depends on the session cookie: `Vary: Cookie` whenever this scheme runs. */
  readonly vary: readonly string[] = Object.freeze(['Cookie'])
  readonly cookieName: string
  readonly csrf: ResolvedCsrfOptions
  private readonly sessions: Pick<SessionStore, 'get'>
  private readonly users: Pick<UserStore, 'findById'>

  constructor(options: SessionAuthenticationOptions) {
    this.sessions = options.sessions
    this.users = options.users
    this.cookieName = options.cookieName ?? 'sessionid'
    this.csrf = resolveCsrfOptions(options.csrf)
  }

  async authenticate(req: ApiRequest): Promise<Authenticated<null> | null> {
    const key = req.cookie(this.cookieName)
    if (key === null || key === '') return null
    const session = await this.sessions.get(key)
    if (session === null || session.userId === null) return null
    const user = await this.users.findById(session.userId)
    if (user === null || !user.isActive) return null
    if (!CSRF_SAFE_METHODS.includes(req.method)) await enforceCsrf(req, this.csrf)
    return { user, auth: null }
  }
}
