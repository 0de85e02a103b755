import type { ApiRequest } from '../core/api-request.js'
import { AuthenticationFailed } from '../core/errors.js'
import {
  decodeUtf8OrLatin1,
  lenientBase64Decode,
  splitAuthorizationHeader,
} from '../core/request/authorization-header.js'
import type { UserStore } from '../stores/user-store.js'
import { failureUsername, type LoginFailureThrottle } from '../throttling/login-failure-throttle.js'
import type { OpenApiSecurityScheme } from '../core/openapi-types.js'
import type { Authenticated, AuthenticationScheme } from './authentication-scheme.js'

/** Options for `BasicAuthentication`. */
export interface BasicAuthenticationOptions {
  readonly users: Pick<UserStore, 'authenticate' | 'canonicalUsername'>
  /** The realm in `WWW-Authenticate: Basic realm="…"`. @default 'api' */
  readonly realm?: string
  /**
   * Counts failed password checks per username and client address, and answers 429 once
   * either is over its rate (share one instance with the token and login views).
   * @default none: failures are not limited
   */
  readonly loginFailures?: LoginFailureThrottle | undefined
}

/**
 * HTTP Basic authentication with DRF's header parsing and messages. Suitable for
 * testing; in production serve it over https only.
 */
export class BasicAuthentication implements AuthenticationScheme<null> {
  readonly name: string = 'BasicAuthentication'
  private readonly users: Pick<UserStore, 'authenticate' | 'canonicalUsername'>
  private readonly realm: string
  private readonly loginFailures: LoginFailureThrottle | undefined

  constructor(options: BasicAuthenticationOptions) {
    this.users = options.users
    this.realm = options.realm ?? 'api'
    this.loginFailures = options.loginFailures
  }

  async authenticate(req: ApiRequest): Promise<Authenticated<null> | null> {
    const parts = splitAuthorizationHeader(req.headers.get('authorization'))
    if (parts.length === 0 || parts[0]?.toLowerCase() !== 'basic') return null
    if (parts.length === 1) throw new AuthenticationFailed('Invalid basic header. No credentials provided.')
    if (parts.length > 2) {
      throw new AuthenticationFailed('Invalid basic header. Credentials string should not contain spaces.')
    }
    const bytes = lenientBase64Decode(parts[1] ?? '')
    if (bytes === null) {
      throw new AuthenticationFailed('Invalid basic header. Credentials not correctly base64 encoded.')
    }
    const text = decodeUtf8OrLatin1(bytes)
    // DRF 3.14: no colon means the whole text is the user id and the password is empty.
    const colon = text.indexOf(':')
    const username = colon === -1 ? text : text.slice(0, colon)
    const password = colon === -1 ? '' : text.slice(colon + 1)
    if (this.loginFailures === undefined) return this.authenticateCredentials(username, password)
    // A failed check throws AuthenticationFailed: told to the throttle as `null`, then rethrown.
    let failure: AuthenticationFailed | null = null
    const outcome = await this.loginFailures.guard(req, failureUsername(this.users, username), async () => {
      try {
        return await this.authenticateCredentials(username, password)
      } catch (error) {
        if (!(error instanceof AuthenticationFailed)) throw error
        failure = error
        return null
      }
    })
    if (outcome === null) throw failure ?? new AuthenticationFailed('Invalid username/password.')
    return outcome
  }

  /** Checks a user id and password; override to change the lookup. */
  protected async authenticateCredentials(username: string, password: string): Promise<Authenticated<null>> {
    const user = await this.users.authenticate(username, password)
    if (user === null) throw new AuthenticationFailed('Invalid username/password.')
    if (!user.isActive) throw new AuthenticationFailed('User inactive or deleted.')
    return { user, auth: null, expiresAt: null }
  }

  authenticateHeader(): string {
    return `Basic realm="${this.realm}"`
  }

  /** OpenAPI: `basicAuth`, `{ type: 'http', scheme: 'basic' }`. */
  openApiSecurity(): readonly OpenApiSecurityScheme[] {
    return [{ name: 'basicAuth', scheme: { type: 'http', scheme: 'basic' } }]
  }

  /** `429` with `Retry-After` once the failed-login throttle refuses a username or client. */
  openApiErrorStatuses(): readonly number[] {
    return this.loginFailures === undefined ? [] : [429]
  }
}
