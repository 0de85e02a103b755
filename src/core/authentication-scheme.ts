import type { ApiRequest } from './api-request.js'
import type { OpenApiSecurityScheme } from './openapi-types.js'
import type { MaybePromise } from './maybe-promise.js'
import type { User } from './user.js'

/** A successful authentication: DRF's `(user, auth)` pair. */
export interface Authenticated<A = unknown> {
  readonly user: User
  /** Scheme-specific extra information (the token record for Token), or `null`. */
  readonly auth: A | null
  /**
   * When the credential the request came with stops working: a token's expiry, a JWT's
   * `exp`, a session's end; `null` when it does not expire (a password, DRF's token). Views
   * that issue credentials (named tokens) never let them outlive it. Left out: `null`, so a
   * scheme whose credentials expire should say when.
   */
  readonly expiresAt?: Date | null
}

/**
 * DRF's three-state authentication contract, synchronous or async. Built-in schemes
 * implement exactly this interface; so does a user's own.
 *
 * @example
 * const xUsername = {
 *   name: 'XUsername',
 *   async authenticate(req) {
 *     const username = req.headers.get('x-username')
 *     if (!username) return null
 *     const user = await users.findByUsername(username)
 *     if (user === null) throw new AuthenticationFailed('No such user')
 *     return { user, auth: null }
 *   },
 * } satisfies AuthenticationScheme
 */
export interface AuthenticationScheme<A = unknown> {
  /** Shown in server-error logs when the scheme throws something unexpected. Defaults to the class name. */
  readonly name?: string
  /**
   * `null`: no credentials of this kind, try the next scheme.
   * A pair: authenticated, stop.
   * Throws `AuthenticationFailed` (or another `ApiError`): credentials present and wrong, answer at once.
   */
  authenticate(req: ApiRequest): MaybePromise<Authenticated<A> | null>
  /**
   * The `WWW-Authenticate` value for a 401. When absent or `undefined`, denials of
   * unauthenticated requests are 403 instead (DRF's rule, decided by the view's first scheme).
   */
  authenticateHeader?(req: ApiRequest): string | undefined
  /**
   * Request headers the scheme's answer depends on, added to the response's `Vary`
   * whenever the scheme was consulted (Session: `Cookie`, as Django's session
   * middleware adds it). Header-credential schemes need none: shared caches do not
   * reuse answers to requests with `Authorization`.
   */
  readonly vary?: readonly string[]
  /**
   * Describes the scheme to an OpenAPI document: the security schemes a request with
   * `method` must satisfy together (Session: the cookie, plus the CSRF header on unsafe
   * methods). Absent: the scheme is left out of the document and noted in the operation's
   * `x-undescribed-authentication`. Empty: the scheme reads no credentials (it only gives a
   * challenge, as the JWT token views' does), so there is nothing to describe or note.
   */
  openApiSecurity?(method: string): readonly OpenApiSecurityScheme[]
  /**
   * Error statuses the scheme answers beyond the `401`/`403` of a failed authentication,
   * for OpenAPI documents (Basic with a failed-login throttle: `429`). Absent: none.
   */
  openApiErrorStatuses?(): readonly number[]
}

/** The display name of a scheme: its `name`, else its class name. */
export function schemeName(scheme: AuthenticationScheme): string {
  if (scheme.name !== undefined) return scheme.name
  const ctor = (scheme as object).constructor
  return ctor !== Object ? ctor.name : 'AuthenticationScheme'
}
