import type { ApiRequest } from '../core/api-request.js'
import { AuthenticationFailed } from '../core/errors.js'
import { headerValueAsUtf8, splitAuthorizationHeader } from '../core/request/authorization-header.js'
import type { TokenRecord, TokenStore, TokenWithUser } from '../stores/token-store.js'
import type { UserStore } from '../stores/user-store.js'
import type { OpenApiSecurityScheme } from '../core/openapi-types.js'
import type { Authenticated, AuthenticationScheme } from './authentication-scheme.js'
import type { TokenCache, TokenLoader } from './token-cache.js'
import { isPromise, thenMaybe, type MaybePromise } from '../core/maybe-promise.js'

function isExpired(token: TokenRecord): boolean {
  return token.expiresAt !== undefined && token.expiresAt !== null && token.expiresAt.getTime() <= Date.now()
}

/** Options for `TokenAuthentication`. */
export interface TokenAuthenticationOptions {
  /**
   * Where tokens are looked up. When the store has `findWithUser` (a `KyselyTokenStore`
   * given `users`), one lookup reads the token and its user together; otherwise the
   * scheme calls `findByKey`, then `users.findById`. A store with `touch` (the named-token
   * store) is told of each successful authentication, to keep a last-used time.
   */
  readonly tokens: Pick<TokenStore, 'findByKey' | 'findWithUser' | 'touch'>
  readonly users: Pick<UserStore, 'findById'>
  /** The scheme keyword in `Authorization: <keyword> <key>`, matched case-insensitively. @default 'Token' */
  readonly keyword?: string
  /** Keeps lookups between requests (`MemoryTokenCache`, or your own). @default none: every request asks the stores */
  readonly cache?: TokenCache | undefined
}

/**
 * `Authorization: Token <key>` (or another keyword such as `Bearer`). `auth` is the
 * token record. DRF's messages; 401 with `WWW-Authenticate: <keyword>` when first.
 */
export class TokenAuthentication implements AuthenticationScheme<TokenRecord> {
  readonly name: string
  readonly keyword: string
  /** `keyword` lower-cased once: the header's keyword is matched case-insensitively. */
  private readonly lowerKeyword: string
  private readonly tokens: Pick<TokenStore, 'findByKey' | 'findWithUser' | 'touch'>
  private readonly users: Pick<UserStore, 'findById'>
  private readonly cache: TokenCache | undefined
  /** `lookup`, bound once, for the cache. */
  private readonly loader: TokenLoader

  constructor(options: TokenAuthenticationOptions) {
    this.tokens = options.tokens
    this.users = options.users
    this.cache = options.cache
    this.keyword = options.keyword ?? 'Token'
    this.lowerKeyword = this.keyword.toLowerCase()
    this.name = `TokenAuthentication(${this.keyword})`
    this.loader = (key) => this.lookup(key)
    this.accept = (found) => this.acceptFound(found)
  }

  /** `acceptFound`, bound once (a lookup's continuation without a closure per request). */
  private readonly accept: (found: TokenWithUser | null) => MaybePromise<Authenticated<TokenRecord>>

  /**
   * The request's token and user: synchronous when the store (or the cache) answered
   * synchronously, else the lookup's own promise (no async wrapper). A refusal is always a
   * rejection, never a throw.
   */
  authenticate(req: ApiRequest): MaybePromise<Authenticated<TokenRecord> | null> {
    try {
      return this.authenticateNow(req)
    } catch (error) {
      return Promise.reject(error as Error)
    }
  }

  private authenticateNow(req: ApiRequest): MaybePromise<Authenticated<TokenRecord> | null> {
    const parts = splitAuthorizationHeader(req.headers.get('authorization'))
    const first = parts[0]
    if (first === undefined || (first !== this.keyword && first.toLowerCase() !== this.lowerKeyword)) return null
    if (parts.length === 1) throw new AuthenticationFailed('Invalid token header. No credentials provided.')
    if (parts.length > 2) {
      throw new AuthenticationFailed('Invalid token header. Token string should not contain spaces.')
    }
    const key = headerValueAsUtf8(parts[1] ?? '')
    if (key === null) {
      throw new AuthenticationFailed('Invalid token header. Token string should not contain invalid characters.')
    }
    return this.authenticateCredentials(key)
  }

  /**
   * Looks the key up (through the cache when there is one) and checks the user; override to
   * change the lookup. A token past its `expiresAt` is "Invalid token." (as an unknown one),
   * even when a cache still holds it. Success is told to the store's `touch`, when it has one.
   */
  protected authenticateCredentials(key: string): MaybePromise<Authenticated<TokenRecord>> {
    const found: MaybePromise<TokenWithUser | null> = this.cache === undefined ? this.lookup(key) : this.cache.get(key, this.loader)
    return thenMaybe(found, this.accept)
  }

  private acceptFound(found: TokenWithUser | null): MaybePromise<Authenticated<TokenRecord>> {
    if (found === null || isExpired(found.token)) throw new AuthenticationFailed('Invalid token.')
    if (!found.user.isActive) throw new AuthenticationFailed('User inactive or deleted.')
    const authenticated: Authenticated<TokenRecord> = { user: found.user, auth: found.token, expiresAt: found.token.expiresAt ?? null }
    if (this.tokens.touch === undefined) return authenticated
    const touched: MaybePromise<void> = this.tokens.touch(found.token)
    return isPromise(touched) ? touched.then(() => authenticated) : authenticated
  }

  /**
   * The token and its user from the stores: one `findWithUser` when the token store has
   * it, else `findByKey` then `findById`. `null` for an unknown key or a token whose user
   * is gone (both "Invalid token.").
   */
  protected lookup(key: string): MaybePromise<TokenWithUser | null> {
    if (this.tokens.findWithUser !== undefined) return this.tokens.findWithUser(key)
    return this.lookupApart(key)
  }

  private async lookupApart(key: string): Promise<TokenWithUser | null> {
    const token = await this.tokens.findByKey(key)
    if (token === null) return null
    const user = await this.users.findById(token.userId)
    return user === null ? null : { token, user }
  }

  authenticateHeader(): string {
    return this.keyword
  }

  /**
   * OpenAPI: keyword `Bearer` is the registered HTTP scheme (`bearerAuth`, `{ type: 'http',
   * scheme: 'bearer' }`). Any other keyword (`Token`) is not a registered HTTP
   * authentication scheme, so it is an API key in the `Authorization` header whose value
   * carries the keyword (`tokenAuth`), as drf-spectacular describes DRF's `TokenAuthentication`.
   */
  openApiSecurity(): readonly OpenApiSecurityScheme[] {
    if (this.keyword.toLowerCase() === 'bearer') return [{ name: 'bearerAuth', scheme: { type: 'http', scheme: 'bearer' } }]
    return [
      {
        name: `${this.keyword.toLowerCase().replace(/[^a-z0-9._-]/g, '_')}Auth`,
        scheme: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: `Token-based authentication with required prefix "${this.keyword}": \`Authorization: ${this.keyword} <key>\``,
        },
      },
    ]
  }
}
