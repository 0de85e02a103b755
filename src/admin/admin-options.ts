import type { ResolvedCsrfOptions } from '../authentication/csrf.js'
import { SessionAuthentication } from '../authentication/session-authentication.js'
import type { Api } from '../core/api.js'
import { ConfigurationError } from '../core/errors.js'
import { defaultPasswordValidators, type PasswordValidator } from '../passwords/password-validation.js'
import type { JwtBlacklistStore } from '../stores/jwt-blacklist-store.js'
import type { NamedTokenStore } from '../stores/named-token-store.js'
import type { SessionStore } from '../stores/session-store.js'
import type { TokenStore } from '../stores/token-store.js'
import type { UserStore } from '../stores/user-store.js'
import type { LoginFailureThrottle } from '../throttling/login-failure-throttle.js'
import type { SessionCookieOptions } from '../views/session-cookies.js'
import { sessionLogin, type SessionLogin } from '../views/session-login.js'

/** The user store the admin pages need: listing, activation and passwords besides the basics. */
export type AdminUserStore = UserStore & Required<Pick<UserStore, 'list' | 'setActive' | 'setPassword'>>

/** Options for `adminRoutes`. */
export interface AdminOptions extends SessionCookieOptions {
  /** The API whose settings (allowed hosts, error logging) the pages share. */
  readonly api: Api
  /** Users: listed, searched, created, activated and deactivated, given passwords (`KyselyUserStore` has it all). */
  readonly users: AdminUserStore
  /** Where admin logins are kept, and whose `deleteForUser` (when it has one) ends a user's sessions. */
  readonly sessions: SessionStore
  /** DRF-style tokens: shown (created date), created, regenerated, deleted. Omit to hide that part. */
  readonly tokens?: TokenStore | undefined
  /** Named tokens: listed and revoked. Omit to hide that part. */
  readonly namedTokens?: NamedTokenStore | undefined
  /**
   * simplejwt's token blacklist (`KyselyJwtBlacklistStore`): a user's refresh tokens are listed
   * (jti, issued, expires, blacklisted or not), with a "blacklist all" action. Omit to hide that part.
   */
  readonly jwtBlacklist?: JwtBlacklistStore | undefined
  /** Failed-login throttling for the admin login form (share the API's instance). @default none */
  readonly loginFailures?: LoginFailureThrottle | undefined
  /**
   * The rules a password set in the add-user and set-password forms must pass (Django's
   * `AUTH_PASSWORD_VALIDATORS`): yours, `defaultPasswordValidators()` with some of your own, or
   * `[]` for none. @default the user store's `passwordValidators`, else `defaultPasswordValidators()`
   * (Django's four: not like the username, 8 characters or more, not a common password, not all digits)
   */
  readonly passwordValidators?: readonly PasswordValidator[] | undefined
  /** Where the pages live: a path starting and ending with `/`. @default '/admin/' */
  readonly prefix?: string
  /** Users per page of the list. @default 50 */
  readonly pageSize?: number
  /** The title in the pages' bar. @default 'gatehouse administration' */
  readonly siteTitle?: string
}

/** `AdminOptions` checked and with every default filled in. */
export interface ResolvedAdminOptions {
  readonly api: Api
  readonly users: AdminUserStore
  readonly sessions: SessionStore
  readonly tokens: TokenStore | undefined
  readonly namedTokens: NamedTokenStore | undefined
  readonly jwtBlacklist: JwtBlacklistStore | undefined
  readonly loginFailures: LoginFailureThrottle | undefined
  readonly passwordValidators: readonly PasswordValidator[]
  readonly prefix: string
  readonly pageSize: number
  readonly siteTitle: string
  /** The CSRF cookie, header and form field: the session scheme's. */
  readonly csrf: ResolvedCsrfOptions
  /** The session scheme on the pages' stores and cookies: who is logged in, and the CSRF check of their changes. */
  readonly session: SessionAuthentication
  /** The forms' CSRF tokens, and the login and logout, on the same stores and cookies. */
  readonly login: SessionLogin
}

const PREFIX = /^\/(?:[A-Za-z0-9._~-]+\/)*$/

/** Checks `options` once, when the routes are declared. @throws ConfigurationError naming the bad option. */
export function resolveAdminOptions(options: AdminOptions): ResolvedAdminOptions {
  const fail = (message: string): never => {
    throw new ConfigurationError('ERR_INVALID_SETTING', `adminRoutes: ${message}`)
  }
  const prefix = options.prefix ?? '/admin/'
  if (typeof prefix !== 'string' || !PREFIX.test(prefix)) fail(`"prefix" must be a path that starts and ends with "/" (plain segments), got "${String(prefix)}"`)
  const users = options.users as Partial<AdminUserStore> | undefined
  for (const method of ['findById', 'authenticate', 'create', 'list', 'setActive', 'setPassword'] as const) {
    if (typeof users?.[method] !== 'function') fail(`"users" must have ${method}() (KyselyUserStore has every method the pages use)`)
  }
  if (typeof options.sessions?.get !== 'function') fail('"sessions" must be a SessionStore')
  const pageSize = options.pageSize ?? 50
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000) fail('"pageSize" must be an integer from 1 to 1000')
  const session = new SessionAuthentication({ sessions: options.sessions, users: options.users, ...(options.cookieName === undefined ? {} : { cookieName: options.cookieName }), csrf: options.csrf ?? {} })
  return Object.freeze({
    api: options.api,
    users: options.users,
    sessions: options.sessions,
    tokens: options.tokens,
    namedTokens: options.namedTokens,
    jwtBlacklist: options.jwtBlacklist,
    loginFailures: options.loginFailures,
    passwordValidators: Object.freeze([...(options.passwordValidators ?? options.users.passwordValidators ?? defaultPasswordValidators())]),
    prefix,
    pageSize,
    siteTitle: options.siteTitle ?? 'gatehouse administration',
    csrf: session.csrf,
    session,
    login: sessionLogin({ ...cookieOptions(options), users: options.users, sessions: options.sessions }),
  })
}

/** The cookie options among `options` (the rest are the admin's own). */
function cookieOptions(options: AdminOptions): SessionCookieOptions {
  const { cookieName, maxAge, secure, domain, csrf, csrfMaxAge } = options
  return { ...(cookieName === undefined ? {} : { cookieName }), ...(maxAge === undefined ? {} : { maxAge }), ...(secure === undefined ? {} : { secure }), ...(domain === undefined ? {} : { domain }), ...(csrf === undefined ? {} : { csrf }), ...(csrfMaxAge === undefined ? {} : { csrfMaxAge }) }
}
