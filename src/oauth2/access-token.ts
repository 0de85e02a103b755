import type { StoredUser } from '../core/user.js'

const ACCESS_TOKEN_BRAND = Symbol.for('gatehouse.OAuth2AccessToken')

/** The realm of the scheme that verified each token, for the scope permissions' challenges. */
const REALMS = new WeakMap<OAuth2AccessToken, string>()

/** What `OAuth2AccessToken` is built from. */
export interface OAuth2AccessTokenInit {
  readonly token: string
  readonly format: 'jwt' | 'opaque'
  readonly claims: Readonly<Record<string, unknown>>
  readonly scopes: readonly string[]
}

function stringClaim(claims: Readonly<Record<string, unknown>>, name: string): string | null {
  const value = claims[name]
  return typeof value === 'string' && value !== '' ? value : null
}

/**
 * A verified access token: `request.auth` (`ctx.auth`) of a request `OAuth2Authentication`
 * authenticated, as django-oauth-toolkit's `request.auth` is its `AccessToken`.
 */
export class OAuth2AccessToken {
  /** The token as the request sent it. Never log it: it is a bearer credential. */
  readonly token: string
  /** `jwt`: verified against the issuer's keys; `opaque`: answered active by introspection. */
  readonly format: 'jwt' | 'opaque'
  /** The verified claims: the JWT's payload, or the introspection answer (RFC 7662 §2.2). */
  readonly claims: Readonly<Record<string, unknown>>
  /** The granted scopes (`scope`, space-separated, or the scheme's `scopeClaims`). */
  readonly scopes: readonly string[]
  /** `sub`: the resource owner (a user), or for a client-credentials token often the client. */
  readonly subject: string | null
  /** The client the token was issued to: `client_id` (RFC 9068, RFC 7662), else `azp`, `cid` (Okta) or `appid` (Entra ID v1). */
  readonly clientId: string | null
  /** When the token expires (`exp`), or `null` when it says nothing. */
  readonly expiresAt: Date | null
  readonly [ACCESS_TOKEN_BRAND] = true

  constructor(init: OAuth2AccessTokenInit) {
    this.token = init.token
    this.format = init.format
    this.claims = init.claims
    this.scopes = Object.freeze([...init.scopes])
    this.subject = stringClaim(init.claims, 'sub')
    this.clientId = stringClaim(init.claims, 'client_id') ?? stringClaim(init.claims, 'azp') ?? stringClaim(init.claims, 'cid') ?? stringClaim(init.claims, 'appid')
    const exp = init.claims['exp']
    this.expiresAt = typeof exp === 'number' && Number.isFinite(exp) ? new Date(exp * 1000) : null
  }

  /** Whether every one of `scopes` was granted. */
  hasScopes(scopes: readonly string[]): boolean {
    return scopes.every((scope) => this.scopes.includes(scope))
  }

  /** Never the token itself: string conversion in a log line must not leak a credential. */
  toString(): string {
    return `OAuth2AccessToken(${this.format}, sub=${this.subject ?? '-'}, client_id=${this.clientId ?? '-'})`
  }

  toJSON(): Record<string, unknown> {
    return { format: this.format, subject: this.subject, clientId: this.clientId, scopes: this.scopes, expiresAt: this.expiresAt }
  }
}

/** `value` as an access token `OAuth2Authentication` verified (even from another copy of the package), else `null`. */
export function accessTokenOf(value: unknown): OAuth2AccessToken | null {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[ACCESS_TOKEN_BRAND] === true ? (value as OAuth2AccessToken) : null
}

export function rememberRealm(token: OAuth2AccessToken, realm: string): void {
  REALMS.set(token, realm)
}

/** The realm `token` was verified under (`api` when unknown). */
export function realmOf(token: OAuth2AccessToken): string {
  return REALMS.get(token) ?? 'api'
}

/**
 * The default user of a token: no local account, a stateless principal named by the token's
 * `sub` (or its `client_id` when it has none: a client-credentials token acts for the
 * client), active, not staff. `id` and `username` are that name.
 */
export function tokenPrincipal(token: OAuth2AccessToken): StoredUser | null {
  const name = token.subject ?? token.clientId
  if (name === null) return null
  return Object.freeze({ id: name, username: name, isActive: true, isStaff: false, isAuthenticated: true as const })
}
