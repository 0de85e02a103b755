import type { ApiRequest } from '../core/api-request.js'
import { AuthenticationFailed } from '../core/errors.js'
import type { OpenApiSecurityScheme } from '../core/openapi-types.js'
import type { StoredUser, UserId } from '../core/user.js'
import type { Authenticated, AuthenticationScheme } from '../authentication/authentication-scheme.js'
import { splitAuthorizationHeader } from '../core/request/authorization-header.js'
import type { UserStore } from '../stores/user-store.js'
import type { JwtBlacklistStore } from '../stores/jwt-blacklist-store.js'
import type { JwtCodec, JwtPayload, TokenType } from './jwt-codec.js'
import type { AuthTokenClass } from './jwt-settings.js'
import { passwordHashReader, requireCurrentPassword, type RevokeTokenUsers } from './revoke-token.js'
import { decodeSliding } from './sliding-token.js'
import { TokenError } from './token-error.js'

/** simplejwt's `InvalidToken`/`AuthenticationFailed`: `{"detail", "code", ...}` as the body, 401. */
export function jwtAuthenticationFailed(detail: string, code: string, extra: Readonly<Record<string, unknown>> = {}): AuthenticationFailed {
  return new AuthenticationFailed({ detail, code, ...extra }, code)
}

/**
 * The user id in a token's claim, as the built-in stores key users (an integer): a safe
 * integer, or a string of digits (Django coerces both). Anything else is `null` ("User not
 * found"; simplejwt answers 500 for `"abc"`). Pass your own to `parseUserId` for string ids.
 */
export function integerUserId(claim: unknown): UserId | null {
  if (typeof claim === 'number') return Number.isSafeInteger(claim) ? claim : null
  if (typeof claim === 'string' && /^[0-9]{1,15}$/.test(claim)) return Number(claim)
  return null
}

/** Options shared by `JWTAuthentication` and `JWTStatelessUserAuthentication`. */
export interface JwtAuthenticationOptions {
  /** The codec (`new JwtCodec(resolveJwtSettings({ signingKey }))`), shared with the token views. */
  readonly codec: JwtCodec
  /**
   * simplejwt's `token_blacklist` app, for sliding tokens (`authTokenClasses` with
   * `'SlidingToken'`): a blacklisted sliding token is refused ("Token is blacklisted"), one
   * store read per request that carries one. Access tokens are never looked up, as in simplejwt.
   * @default none
   */
  readonly blacklist?: Pick<JwtBlacklistStore, 'isBlacklisted'> | undefined
}

/** Options for `JWTAuthentication`. */
export interface JwtUserAuthenticationOptions extends JwtAuthenticationOptions {
  /** Finds the token's user; with the `checkRevokeToken` setting, `storedPasswordHash` too. */
  readonly users: Pick<UserStore, 'findById'> & RevokeTokenUsers
  /** Turns the `user_id` claim into a store id, or `null` for none. @default integerUserId */
  readonly parseUserId?: (claim: unknown) => UserId | null
}

/**
 * simplejwt's `JWTStatelessUserAuthentication`: `Authorization: Bearer <access token>` (or a
 * sliding token, when the `authTokenClasses` setting lists `'SlidingToken'`),
 * validated without a database. The user is simplejwt's `TokenUser`: id from the
 * `user_id` claim, `username` from a `username` claim (else `''`), active, not staff.
 * `auth` is the token's claims. Errors and challenge as `JWTAuthentication`.
 */
export class JWTStatelessUserAuthentication implements AuthenticationScheme<JwtPayload> {
  readonly name: string = 'JWTStatelessUserAuthentication'
  protected readonly codec: JwtCodec
  private readonly blacklist: Pick<JwtBlacklistStore, 'isBlacklisted'> | undefined

  constructor(options: JwtAuthenticationOptions) {
    this.codec = options.codec
    this.blacklist = options.blacklist
  }

  async authenticate(req: ApiRequest): Promise<Authenticated<JwtPayload> | null> {
    const raw = this.rawToken(req)
    if (raw === null) return null
    const payload = await this.validatedToken(raw)
    // The codec checked `exp` is a number: the access token stops working then.
    const exp = payload['exp']
    return { user: await this.userOf(payload), auth: payload, expiresAt: typeof exp === 'number' ? new Date(exp * 1000) : null }
  }

  /** simplejwt's `get_raw_token`: `null` unless the first part is one of the header types (case-sensitive). */
  protected rawToken(req: ApiRequest): string | null {
    const parts = splitAuthorizationHeader(req.headers.get('authorization'))
    if (parts.length === 0 || !this.codec.settings.authHeaderTypes.includes(parts[0] ?? '')) return null
    if (parts.length !== 2) {
      throw jwtAuthenticationFailed('Authorization header must contain two space-delimited values', 'bad_authorization_header')
    }
    return parts[1] ?? ''
  }

  /** simplejwt's `get_validated_token`: the first of `AUTH_TOKEN_CLASSES` the token is valid as, else every class's message. */
  protected async validatedToken(raw: string): Promise<JwtPayload> {
    const messages: { token_class: AuthTokenClass; token_type: TokenType; message: string }[] = []
    for (const tokenClass of this.codec.settings.authTokenClasses) {
      try {
        return tokenClass === 'SlidingToken' ? await decodeSliding(this.codec, raw, this.blacklist) : await this.codec.decode(raw, 'access')
      } catch (error) {
        if (!(error instanceof TokenError)) throw error
        messages.push({ token_class: tokenClass, token_type: tokenClass === 'SlidingToken' ? 'sliding' : 'access', message: error.message })
      }
    }
    throw jwtAuthenticationFailed('Given token not valid for any token type', 'token_not_valid', { messages })
  }

  /** The `user_id` claim, or the "no recognizable user identification" error. */
  protected userIdClaim(payload: JwtPayload): unknown {
    const claim = this.codec.settings.userIdClaim
    if (!(claim in payload)) throw jwtAuthenticationFailed('Token contained no recognizable user identification', 'token_not_valid')
    return payload[claim]
  }

  /** simplejwt's `TokenUser`. */
  protected async userOf(payload: JwtPayload): Promise<StoredUser> {
    const id = this.userIdClaim(payload)
    if (typeof id !== 'number' && typeof id !== 'string') throw jwtAuthenticationFailed('Token contained no recognizable user identification', 'token_not_valid')
    const username = payload['username']
    return Object.freeze({ id, username: typeof username === 'string' ? username : '', isActive: true, isStaff: false, isAuthenticated: true })
  }

  /** `Bearer realm="api"`: the first header type. */
  authenticateHeader(): string {
    return `${this.codec.settings.authHeaderTypes[0] ?? 'Bearer'} realm="api"`
  }

  /**
   * OpenAPI: `jwtAuth`, drf-spectacular's name for simplejwt's scheme (so clients generated
   * from the DRF schema keep their names; `bearerAuth` is `TokenAuthentication`'s with keyword
   * `Bearer`), the HTTP bearer scheme with `bearerFormat: 'JWT'` when the first header type is
   * `Bearer`. Another keyword is no registered HTTP scheme, so it is an API key in the
   * `Authorization` header whose value carries the keyword, as `TokenAuthentication` describes `Token`.
   */
  openApiSecurity(): readonly OpenApiSecurityScheme[] {
    const keyword = this.codec.settings.authHeaderTypes[0] ?? 'Bearer'
    if (keyword === 'Bearer') return [{ name: 'jwtAuth', scheme: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } }]
    return [{ name: 'jwtAuth', scheme: { type: 'apiKey', in: 'header', name: 'Authorization', description: `\`${keyword} <access token>\` (a JWT).` } }]
  }
}

/**
 * simplejwt's `JWTAuthentication`: `Authorization: Bearer <access token>` (the keyword as
 * `authHeaderTypes`, case-sensitive; a sliding token too when the `authTokenClasses` setting
 * lists `'SlidingToken'`, checked against `blacklist` when given), then the user looked up by the `user_id` claim. A
 * deleted user is `401 {"detail":"User not found","code":"user_not_found"}`, an inactive one
 * `user_inactive`; a bad token `{"detail":"Given token not valid for any token type",
 * "code":"token_not_valid","messages":[…]}`; with the `checkRevokeToken` setting, a token
 * issued before the user's password last changed `{"detail":"The user's password has been
 * changed.","code":"password_changed"}`; every 401 carries `WWW-Authenticate: Bearer realm="api"`.
 *
 * @example
 * const codec = new JwtCodec(resolveJwtSettings({ signingKey: process.env.SECRET_KEY! }))
 * api.view({ handlers, authentication: [new JWTAuthentication({ codec, users })] })
 */
export class JWTAuthentication extends JWTStatelessUserAuthentication {
  override readonly name: string = 'JWTAuthentication'
  private readonly users: Pick<UserStore, 'findById'>
  private readonly parseUserId: (claim: unknown) => UserId | null
  private readonly passwordHash: ((id: UserId) => Promise<string | null>) | undefined

  constructor(options: JwtUserAuthenticationOptions) {
    super(options)
    this.users = options.users
    this.parseUserId = options.parseUserId ?? integerUserId
    this.passwordHash = passwordHashReader(options.codec, options.users, 'JWTAuthentication')
  }

  protected override async userOf(payload: JwtPayload): Promise<StoredUser> {
    const id = this.parseUserId(this.userIdClaim(payload))
    const user = id === null ? null : await this.users.findById(id)
    if (user === null) throw jwtAuthenticationFailed('User not found', 'user_not_found')
    if (!user.isActive) throw jwtAuthenticationFailed('User is inactive', 'user_inactive')
    if (this.passwordHash !== undefined) await requireCurrentPassword(this.codec, this.passwordHash, user.id, payload)
    return user
  }
}
