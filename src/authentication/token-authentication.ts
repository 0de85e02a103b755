import type { ApiRequest } from '../core/api-request.js'
import { AuthenticationFailed } from '../core/errors.js'
import { decodeUtf8Strict, splitAuthorizationHeader } from '../http/authorization-header.js'
import type { TokenRecord, TokenStore } from '../stores/token-store.js'
import type { UserStore } from '../stores/user-store.js'
import type { Authenticated, AuthenticationScheme } from './authentication-scheme.js'

/** Options for `TokenAuthentication`. */
export interface TokenAuthenticationOptions {
  readonly tokens: Pick<TokenStore, 'findByKey'>
  readonly users: Pick<UserStore, 'findById'>
  /** The scheme keyword in `Authorization: <keyword> <key>`, matched case-insensitively. @default 'Token' */
  readonly keyword?: string
}

/**
 * `Authorization: Token <key>` (or another keyword such as `Bearer`). `auth` is the
 * token record. DRF's messages; 401 with `WWW-Authenticate: <keyword>` when first.
 */
export class TokenAuthentication implements AuthenticationScheme<TokenRecord> {
  readonly name: string
  readonly keyword: string
  private readonly tokens: Pick<TokenStore, 'findByKey'>
  private readonly users: Pick<UserStore, 'findById'>

  constructor(options: TokenAuthenticationOptions) {
    this.tokens = options.tokens
    this.users = options.users
    this.keyword = options.keyword ?? 'Token'
    this.name = `TokenAuthentication(${this.keyword})`
  }

  async authenticate(req: ApiRequest): Promise<Authenticated<TokenRecord> | null> {
    const parts = splitAuthorizationHeader(req.headers.get('authorization'))
    if (parts.length === 0 || parts[0]?.toLowerCase() !== this.keyword.toLowerCase()) return null
    if (parts.length === 1) throw new AuthenticationFailed('Invalid token header. No credentials provided.')
    if (parts.length > 2) {
      throw new AuthenticationFailed('Invalid token header. Token string should not contain spaces.')
    }
    const key = decodeUtf8Strict(Buffer.from(parts[1] ?? '', 'latin1'))
    if (key === null) {
      throw new AuthenticationFailed('Invalid token header. Token string should not contain invalid characters.')
    }
    return this.authenticateCredentials(key)
  }

  /** Looks the key up; override to change the lookup. */
  protected async authenticateCredentials(key: string): Promise<Authenticated<TokenRecord>> {
    const token = await this.tokens.findByKey(key)
    if (token === null) throw new AuthenticationFailed('Invalid token.')
    const user = await this.users.findById(token.userId)
    if (user === null) throw new AuthenticationFailed('Invalid token.')
    if (!user.isActive) throw new AuthenticationFailed('User inactive or deleted.')
    return { user, auth: token }
  }

  authenticateHeader(): string {
    return this.keyword
  }
}
