import type { ApiRequest } from '../core/api-request.js'
import type { SessionStore } from '../stores/session-store.js'
import type { UserStore } from '../stores/user-store.js'
import type { OpenApiSecurityScheme } from '../core/openapi-types.js'
import type { Authenticated, AuthenticationScheme } from './authentication-scheme.js'
import { sessionAuthHashMatches } from './session-auth-hash.js'
import { CSRF_SAFE_METHODS, enforceCsrf, resolveCsrfOptions, type CsrfOptions, type ResolvedCsrfOptions } from './csrf.js'

/** Options for `SessionAuthentication`. */
export interface SessionAuthenticationOptions {
  readonly sessions: Pick<SessionStore, 'get'>
  /**
   * Where the session's user is read. A store with `sessionAuthHash` (`KyselyUserStore`)
   * also ends sessions made before the user's password last changed (Django's session
   * verification).
   */
  readonly users: Pick<UserStore, 'findById' | 'sessionAuthHash'>
  /** Session cookie name. @default 'sessionid' */
  readonly cookieName?: string
  /** CSRF cookie, header, form field and trusted origins (Django's defaults). */
  readonly csrf?: CsrfOptions
}

/**
 * The session of the host website: the `sessionid` cookie names a stored session.
 * Anonymous or inactive sessions, and sessions from before the user's password last changed
 * (when the user store has `sessionAuthHash`, as Django checks its session auth hash), are
 * "not attempted" (no CSRF needed); an active session user's unsafe request must pass the
 * CSRF check (403 otherwise). No challenge header, so unauthenticated denials are 403 when
 * this scheme is first.
 */
export class SessionAuthentication implements AuthenticationScheme<null> {
  readonly name: string = 'SessionAuthentication'
  /** The answer depends on the session cookie: `Vary: Cookie` whenever this scheme runs. */
  readonly vary: readonly string[] = Object.freeze(['Cookie'])
  readonly cookieName: string
  readonly csrf: ResolvedCsrfOptions
  private readonly sessions: Pick<SessionStore, 'get'>
  private readonly users: Pick<UserStore, 'findById' | 'sessionAuthHash'>

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
    if (session === null) this.noteStale(req)
    if (session === null || session.userId === null) return null
    const [user, hash] = await Promise.all([this.users.findById(session.userId), this.users.sessionAuthHash?.(session.userId)])
    if (user === null || !user.isActive) return null
    // The password changed since this session logged in (or it predates the hash): no longer a login.
    if (hash !== undefined && (hash === null || !sessionAuthHashMatches(session.data, hash))) {
      // Django flushes such a session, and its middleware then deletes the cookie.
      this.noteStale(req)
      return null
    }
    if (!CSRF_SAFE_METHODS.includes(req.method)) await enforceCsrf(req, this.csrf)
    return { user, auth: null, expiresAt: session.expiresAt }
  }

  /**
   * True when this scheme read `req`'s session cookie and the store had no live session for
   * it (unknown, expired or deleted): Django's session middleware then deletes the cookie.
   * False when it was not read (another scheme answered first) or named a session.
   */
  foundNoSession(req: ApiRequest): boolean {
    return req.notes?.staleCookies?.includes(this.cookieName) === true
  }

  private noteStale(req: ApiRequest): void {
    const notes = req.notes
    if (notes !== undefined) (notes.staleCookies ??= []).push(this.cookieName)
  }

  /**
   * OpenAPI: the session cookie (`cookieAuth`, an API key `in: cookie`) and, for unsafe
   * methods, the CSRF header with it (`csrfToken`, an API key `in: header`): both in one
   * security requirement, since a session request without the header is refused.
   */
  openApiSecurity(method: string): readonly OpenApiSecurityScheme[] {
    const cookie: OpenApiSecurityScheme = {
      name: 'cookieAuth',
      scheme: { type: 'apiKey', in: 'cookie', name: this.cookieName, description: 'The session cookie set by the login view.' },
    }
    if (CSRF_SAFE_METHODS.includes(method.toUpperCase())) return [cookie]
    const csrf: OpenApiSecurityScheme = {
      name: 'csrfToken',
      scheme: {
        type: 'apiKey',
        in: 'header',
        name: this.csrf.headerName,
        description: `Required with the session cookie on unsafe methods: the value of the \`${this.csrf.cookieName}\` cookie (or a masked token, as the csrf view returns).`,
      },
    }
    return [cookie, csrf]
  }
}
