import { AuthenticationFailed, ConfigurationError, ValidationError } from '../core/errors.js'
import { jsonResponse, type ApiResponse } from '../core/api-response.js'
import type { JsonObject } from '../core/openapi-types.js'
import type { ActionField, ActionFields } from '../core/action-metadata.js'
import type { StoredUser, UserId } from '../core/user.js'
import type { Handler, RequestContext, ViewOptions } from '../core/view.js'
import type { AuthenticationScheme } from '../authentication/authentication-scheme.js'
import type { JwtBlacklistStore, OutstandingJwt } from '../stores/jwt-blacklist-store.js'
import type { UserStore } from '../stores/user-store.js'
import type { LoginFailureThrottle } from '../throttling/login-failure-throttle.js'
import type { Throttle } from '../throttling/throttle.js'
import { checkCredentials } from '../views/authenticate-credentials.js'
import { NON_FIELD_ERRORS_KEY, validateCharFields } from '../views/char-fields.js'
import { CREDENTIALS_SCHEMA } from '../views/credentials-schema.js'
import { integerUserId, jwtAuthenticationFailed } from './jwt-authentication.js'
import type { JwtCodec, JwtPayload, TokenType } from './jwt-codec.js'
import { TOKEN_MESSAGES, TokenError } from './token-error.js'
import { addRevokeClaim, passwordHashReader, requireCurrentPassword, type RevokeTokenUsers } from './revoke-token.js'
import { decodeSliding, slidingPayloadFor } from './sliding-token.js'

/** simplejwt's `no_active_account` message (obtain, and refresh for a deleted or inactive user). */
export const NO_ACTIVE_ACCOUNT_MESSAGE = 'No active account found with the given credentials'

/** Options every token view takes. */
export interface JwtViewOptions {
  readonly codec: JwtCodec
  /** Throttles of the view. simplejwt's views keep DRF's global throttles. @default the API's global throttles */
  readonly throttles?: readonly Throttle[]
  /** Scope read by a scoped-rate throttle passed in `throttles`. */
  readonly throttleScope?: string
  /**
   * simplejwt's `token_blacklist` app: obtain records each refresh token, refresh refuses
   * blacklisted ones ("Token is blacklisted"). @default none (no blacklist)
   */
  readonly blacklist?: JwtBlacklistStore | undefined
}

/** Options for `jwtBlacklistView`. */
export interface JwtBlacklistViewOptions extends JwtViewOptions {
  readonly blacklist: JwtBlacklistStore
}

/** Options for `jwtObtainPairView`. */
export interface JwtObtainPairOptions extends JwtViewOptions {
  /**
   * Checks the credentials; with the `updateLastLogin` setting, also records the login
   * (`updateLastLogin`); with `checkRevokeToken`, reads the hash the tokens carry a digest of (`storedPasswordHash`).
   */
  readonly users: Pick<UserStore, 'authenticate' | 'updateLastLogin' | 'canonicalUsername'> & RevokeTokenUsers
  /** Counts failed password checks; past its rate the view answers 429. Share it with the other login views. @default none */
  readonly loginFailures?: LoginFailureThrottle | undefined
}

/** Options for `jwtRefreshView`. */
export interface JwtRefreshOptions extends JwtViewOptions {
  /**
   * Refresh is refused (401 `no_active_account`) for a deleted or inactive user, as later
   * simplejwt versions do; with `checkRevokeToken`, for a changed password too (`storedPasswordHash`).
   */
  readonly users: Pick<UserStore, 'findById'> & RevokeTokenUsers
  /** Turns the `user_id` claim into a store id. @default integerUserId */
  readonly parseUserId?: (claim: unknown) => UserId | null
}

/**
 * The token views run no authentication (simplejwt's `authentication_classes = ()`), but
 * their 401s carry `WWW-Authenticate: Bearer realm="api"`: this scheme never authenticates
 * and only gives the challenge.
 */
function challengeOnly(codec: JwtCodec): AuthenticationScheme {
  const header = `${codec.settings.authHeaderTypes[0] ?? 'Bearer'} realm="api"`
  // openApiSecurity: none, so the document says the views take no credentials (not "undescribed").
  return { name: 'JWTTokenViewChallenge', authenticate: () => Promise.resolve(null), authenticateHeader: () => header, openApiSecurity: () => [] }
}

/** Decodes a token for a view: a `TokenError` becomes simplejwt's `InvalidToken` (401 `token_not_valid`). */
async function decodeForView(codec: JwtCodec, token: string, type: TokenType | null): Promise<JwtPayload> {
  try {
    return await codec.decode(token, type)
  } catch (error) {
    if (error instanceof TokenError) throw jwtAuthenticationFailed(error.message, 'token_not_valid')
    throw error
  }
}

/** The blacklist's record of a decoded refresh token. */
function outstanding(codec: JwtCodec, payload: JwtPayload): OutstandingJwt {
  const userId = payload[codec.settings.userIdClaim]
  const exp = payload['exp']
  const iat = payload['iat']
  return {
    jti: String(payload[codec.settings.jtiClaim]),
    userId: typeof userId === 'number' || typeof userId === 'string' ? userId : null,
    expiresAt: new Date((typeof exp === 'number' ? exp : 0) * 1000),
    ...(typeof iat === 'number' && Number.isFinite(iat) ? { createdAt: new Date(iat * 1000) } : {}),
  }
}

/** simplejwt's `RefreshToken(token)` with the blacklist app: decoded, then refused when blacklisted. */
async function decodeRefresh(codec: JwtCodec, token: string, blacklist: JwtBlacklistStore | undefined): Promise<JwtPayload> {
  const payload = await decodeForView(codec, token, 'refresh')
  if (blacklist !== undefined && (await blacklist.isBlacklisted(String(payload[codec.settings.jtiClaim])))) {
    throw jwtAuthenticationFailed(TOKEN_MESSAGES.blacklisted, 'token_not_valid')
  }
  return payload
}

/**
 * simplejwt's `RefreshToken.for_user(user)`: the refresh token's claims, at `now` seconds.
 * With the `checkRevokeToken` setting, give the user's `storedPasswordHash` (`null`: none):
 * the token carries its digest under `revokeTokenClaim`.
 */
export function refreshPayloadFor(codec: JwtCodec, user: StoredUser, now: number, storedPasswordHash?: string | null): JwtPayload {
  const payload = codec.newPayload('refresh', now, codec.settings.refreshTokenLifetime)
  payload[codec.settings.userIdClaim] = typeof user.id === 'number' && Number.isInteger(user.id) ? user.id : String(user.id)
  addRevokeClaim(codec, payload, storedPasswordHash)
  return payload
}


/**
 * simplejwt's `RefreshToken.access_token`: a new access token expiring `accessTokenLifetime`
 * after `now`, with every other claim of the refresh token copied (its `iat` included).
 */
export function accessPayloadFrom(codec: JwtCodec, refresh: JwtPayload, now: number): JwtPayload {
  const s = codec.settings
  const access = codec.newPayload('access', now, s.accessTokenLifetime)
  const noCopy = new Set([s.tokenTypeClaim, 'exp', s.jtiClaim, 'jti'])
  for (const [claim, value] of Object.entries(refresh)) if (!noCopy.has(claim)) access[claim] = value
  return access
}

/** Views that issue tokens need the private (or HMAC) key: a verifying-only codec is refused when the view is made. */
function needsSigningKey(codec: JwtCodec, view: string): void {
  if (!codec.canSign) throw new ConfigurationError('ERR_INVALID_SETTING', `${view} issues tokens: its codec needs the JWT setting "signingKey"`)
}

/**
 * simplejwt's view docstrings, which DRF shows as the view's description (OPTIONS, the
 * browsable page): word for word, so OPTIONS answers as simplejwt's views do.
 */
const DESCRIPTIONS = {
  'Token Obtain Pair': 'Takes a set of user credentials and returns an access and refresh JSON web\ntoken pair to prove the authentication of those credentials.',
  'Token Refresh': 'Takes a refresh type JSON web token and returns an access type JSON web\ntoken if the refresh token is valid.',
  'Token Verify': "Takes a token and indicates if it is valid.  This view provides no\ninformation about a token's fitness for a particular use.",
  'Token Blacklist': 'Takes a token and blacklists it. Must be used with the\n`rest_framework_simplejwt.token_blacklist` app installed.',
  'Token Obtain Sliding': 'Takes a set of user credentials and returns a sliding JSON web token to\nprove the authentication of those credentials.',
  'Token Refresh Sliding': "Takes a sliding JSON web token and returns a new, refreshed version if the\ntoken's refresh period has not expired.",
} as const

/** A writable string field of a simplejwt serializer, as DRF's OPTIONS `actions` describes it. */
const input = (label: string): ActionField => ({ type: 'string', required: true, read_only: false, label })

/**
 * simplejwt 5.2.2's serializer fields per view, shown under OPTIONS `actions` as its views
 * show them (TokenObtainPairSerializer, TokenRefreshSerializer, TokenVerifySerializer,
 * TokenBlacklistSerializer), in their order.
 */
const SERIALIZER_FIELDS: Readonly<Record<keyof typeof DESCRIPTIONS, ActionFields>> = {
  'Token Obtain Pair': { username: input('Username'), password: input('Password') },
  'Token Refresh': { refresh: input('Refresh'), access: { type: 'string', required: false, read_only: true, label: 'Access' } },
  'Token Verify': { token: input('Token') },
  'Token Blacklist': { refresh: input('Refresh') },
  'Token Obtain Sliding': { username: input('Username'), password: input('Password') },
  'Token Refresh Sliding': { token: input('Token') },
}

function tokenView(options: JwtViewOptions, name: keyof typeof DESCRIPTIONS, post: Handler): ViewOptions {
  return {
    name,
    description: DESCRIPTIONS[name],
    actions: { POST: SERIALIZER_FIELDS[name] },
    handlers: { POST: post },
    permissions: [],
    authentication: [challengeOnly(options.codec)],
    ...(options.throttles === undefined ? {} : { throttles: options.throttles }),
    ...(options.throttleScope === undefined ? {} : { throttleScope: options.throttleScope }),
  }
}

const STRING: JsonObject = { type: 'string' }
const PAIR_SCHEMA: JsonObject = { type: 'object', required: ['refresh', 'access'], properties: { refresh: STRING, access: STRING }, additionalProperties: false }


/** The user store's `updateLastLogin` when the `updateLastLogin` setting is on (refused at start-up when the store has none). */
function lastLoginUpdater(codec: JwtCodec, users: JwtObtainPairOptions['users']): ((id: UserId, at: Date) => Promise<unknown>) | undefined {
  if (!codec.settings.updateLastLogin) return undefined
  const update = users.updateLastLogin?.bind(users)
  if (update === undefined) {
    throw new ConfigurationError('ERR_INVALID_SETTING', 'JWT setting "updateLastLogin" needs a user store with updateLastLogin (KyselyUserStore has it)')
  }
  return update
}

/** simplejwt's TokenObtainSerializer: the body's username and password (a plain CharField: trimmed too), for an active user only. */
async function activeUserFromBody(ctx: RequestContext, users: JwtObtainPairOptions['users'], loginFailures: JwtObtainPairOptions['loginFailures']): Promise<StoredUser> {
  const { username, password } = validateCharFields(await ctx.request.body(), { username: {}, password: {} }, ctx.request)
  const user = await checkCredentials(ctx.request, users, username, password, loginFailures)
  if (user === null || !user.isActive) throw new AuthenticationFailed(NO_ACTIVE_ACCOUNT_MESSAGE, 'no_active_account')
  return user
}

/**
 * simplejwt's `TokenObtainPairView`: `POST` `username` and `password`, get
 * `200 {"refresh", "access"}`; bad, unknown or inactive credentials are
 * `401 {"detail": "No active account found with the given credentials"}`.
 *
 * @example
 * route('/api/token/', api.view(jwtObtainPairView({ codec, users })))
 */
export function jwtObtainPairView(options: JwtObtainPairOptions): ViewOptions {
  const { codec, users, loginFailures } = options
  needsSigningKey(codec, 'jwtObtainPairView')
  const updateLastLogin = lastLoginUpdater(codec, users)
  const passwordHash = passwordHashReader(codec, users, 'jwtObtainPairView')
  const post = async (ctx: RequestContext): Promise<ApiResponse> => {
    const user = await activeUserFromBody(ctx, users, loginFailures)
    const now = codec.currentTime()
    // Read after authenticate, which may have just rehashed the password (Django's must_update).
    const refresh = refreshPayloadFor(codec, user, now, await passwordHash?.(user.id))
    await options.blacklist?.addOutstanding(outstanding(codec, refresh))
    // simplejwt's TokenObtainPairSerializer: update_last_login once the pair is made.
    await updateLastLogin?.(user.id, new Date(now * 1000))
    return jsonResponse(200, { refresh: await codec.encode(refresh), access: await codec.encode(accessPayloadFrom(codec, refresh, now)) })
  }
  const described = Object.assign(post, {
    openApi: { requestBody: CREDENTIALS_SCHEMA, response: PAIR_SCHEMA, errors: loginFailures === undefined ? [401] : [401, 429] },
  })
  return { ...tokenView(options, 'Token Obtain Pair', described) }
}

/**
 * simplejwt's `TokenRefreshView`: `POST {"refresh"}`, get `200 {"access"}` (and a new
 * `refresh` with `rotateRefreshTokens`). A bad token is `401 {"detail": "Token is invalid or
 * expired", "code": "token_not_valid"}`; a deleted or inactive user `401 no_active_account`.
 */
export function jwtRefreshView(options: JwtRefreshOptions): ViewOptions {
  const { codec, users } = options
  needsSigningKey(codec, 'jwtRefreshView')
  const parseUserId = options.parseUserId ?? integerUserId
  const passwordHash = passwordHashReader(codec, users, 'jwtRefreshView')
  const post = async (ctx: RequestContext): Promise<ApiResponse> => {
    const fields = validateCharFields(await ctx.request.body(), { refresh: {} }, ctx.request)
    const refresh = await decodeRefresh(codec, fields.refresh, options.blacklist)
    const claim = refresh[codec.settings.userIdClaim]
    const id = parseUserId(claim)
    const user = id === null ? null : await users.findById(id)
    if (user === null || !user.isActive) throw jwtAuthenticationFailed(NO_ACTIVE_ACCOUNT_MESSAGE, 'no_active_account')
    // As simplejwt's main branch (PR 928): otherwise a refresh token outlives the password it was issued under.
    if (passwordHash !== undefined) await requireCurrentPassword(codec, passwordHash, user.id, refresh)
    const now = codec.currentTime()
    const body: Record<string, string> = { access: await codec.encode(accessPayloadFrom(codec, refresh, now)) }
    if (codec.settings.rotateRefreshTokens) {
      // The old token is claimed before anything is issued, in one atomic write: of concurrent
      // refreshes with one token only the one whose write blacklisted it rotates.
      if (codec.settings.blacklistAfterRotation && options.blacklist !== undefined && !(await options.blacklist.blacklist(outstanding(codec, refresh)))) {
        throw jwtAuthenticationFailed(TOKEN_MESSAGES.blacklisted, 'token_not_valid')
      }
      const fresh = { ...refresh, ...codec.newPayload('refresh', now, codec.settings.refreshTokenLifetime) }
      await options.blacklist?.addOutstanding(outstanding(codec, fresh))
      body['refresh'] = await codec.encode(fresh)
    }
    return jsonResponse(200, body)
  }
  const required = codec.settings.rotateRefreshTokens ? ['access', 'refresh'] : ['access']
  const described = Object.assign(post, {
    openApi: {
      requestBody: { type: 'object', required: ['refresh'], properties: { refresh: STRING } },
      response: { type: 'object', required, properties: { access: STRING, refresh: STRING }, additionalProperties: false },
      errors: [401],
    },
  })
  return tokenView(options, 'Token Refresh', described)
}

/** Options for `jwtObtainSlidingView`. */
export type JwtObtainSlidingOptions = JwtObtainPairOptions

/** Options for `jwtRefreshSlidingView`. */
export type JwtRefreshSlidingOptions = JwtRefreshOptions

const SLIDING_SCHEMA: JsonObject = { type: 'object', required: ['token'], properties: { token: STRING }, additionalProperties: false }

/**
 * simplejwt's `TokenObtainSlidingView`: `POST` `username` and `password`, get `200 {"token"}`,
 * a sliding token (`token_type: "sliding"`) that authenticates for `slidingTokenLifetime` and
 * can be refreshed with `jwtRefreshSlidingView` until its `refresh_exp`. Errors as
 * `jwtObtainPairView`; with `blacklist`, the token is recorded as outstanding.
 * `JWTAuthentication` accepts it when the `authTokenClasses` setting lists `'SlidingToken'`.
 */
export function jwtObtainSlidingView(options: JwtObtainSlidingOptions): ViewOptions {
  const { codec, users, loginFailures } = options
  needsSigningKey(codec, 'jwtObtainSlidingView')
  const updateLastLogin = lastLoginUpdater(codec, users)
  const passwordHash = passwordHashReader(codec, users, 'jwtObtainSlidingView')
  const post = async (ctx: RequestContext): Promise<ApiResponse> => {
    const user = await activeUserFromBody(ctx, users, loginFailures)
    const now = codec.currentTime()
    const sliding = slidingPayloadFor(codec, user, now, await passwordHash?.(user.id))
    await options.blacklist?.addOutstanding(outstanding(codec, sliding))
    await updateLastLogin?.(user.id, new Date(now * 1000))
    return jsonResponse(200, { token: await codec.encode(sliding) })
  }
  const described = Object.assign(post, {
    openApi: { requestBody: CREDENTIALS_SCHEMA, response: SLIDING_SCHEMA, errors: loginFailures === undefined ? [401] : [401, 429] },
  })
  return tokenView(options, 'Token Obtain Sliding', described)
}

/**
 * simplejwt's `TokenRefreshSlidingView`: `POST {"token"}` (a sliding token not yet expired:
 * as in simplejwt, an expired one is refused even before its `refresh_exp`), get `200 {"token"}`, the same token
 * (same `jti` and claims) with `exp` `slidingTokenLifetime` from now and `iat` now. Past
 * `refresh_exp` it is `401 {"detail": "Token 'refresh_exp' claim has expired", "code":
 * "token_not_valid"}`; a blacklisted one "Token is blacklisted"; a deleted or inactive user
 * `401 no_active_account`, as `jwtRefreshView`.
 */
export function jwtRefreshSlidingView(options: JwtRefreshSlidingOptions): ViewOptions {
  const { codec, users } = options
  needsSigningKey(codec, 'jwtRefreshSlidingView')
  const parseUserId = options.parseUserId ?? integerUserId
  const passwordHash = passwordHashReader(codec, users, 'jwtRefreshSlidingView')
  const s = codec.settings
  const post = async (ctx: RequestContext): Promise<ApiResponse> => {
    const fields = validateCharFields(await ctx.request.body(), { token: {} }, ctx.request)
    let token: JwtPayload
    try {
      token = await decodeSliding(codec, fields.token, options.blacklist)
      codec.checkTimeClaim(token, s.slidingTokenRefreshExpClaim)
    } catch (error) {
      if (error instanceof TokenError) throw jwtAuthenticationFailed(error.message, 'token_not_valid')
      throw error
    }
    const id = parseUserId(token[s.userIdClaim])
    const user = id === null ? null : await users.findById(id)
    if (user === null || !user.isActive) throw jwtAuthenticationFailed(NO_ACTIVE_ACCOUNT_MESSAGE, 'no_active_account')
    if (passwordHash !== undefined) await requireCurrentPassword(codec, passwordHash, user.id, token)
    const now = codec.currentTime()
    // set_exp() then set_iat(): the claims keep their places, the jti stays.
    const fresh = { ...token, exp: Math.floor(now + s.slidingTokenLifetime), iat: Math.floor(now) }
    return jsonResponse(200, { token: await codec.encode(fresh) })
  }
  const described = Object.assign(post, {
    openApi: { requestBody: { type: 'object', required: ['token'], properties: { token: STRING } }, response: SLIDING_SCHEMA, errors: [401] },
  })
  return tokenView(options, 'Token Refresh Sliding', described)
}

/**
 * simplejwt's `TokenVerifyView`: `POST {"token"}` (any type), `200 {}` when it is valid,
 * else `401 {"detail": …, "code": "token_not_valid"}`.
 */
export function jwtVerifyView(options: JwtViewOptions): ViewOptions {
  const { codec } = options
  const post = async (ctx: RequestContext): Promise<ApiResponse> => {
    const fields = validateCharFields(await ctx.request.body(), { token: {} }, ctx.request)
    const payload = await decodeForView(codec, fields.token, null)
    // 5.2.2 checks the blacklist here only with BLACKLIST_AFTER_ROTATION, and answers 400.
    if (codec.settings.blacklistAfterRotation && options.blacklist !== undefined && (await options.blacklist.isBlacklisted(String(payload[codec.settings.jtiClaim])))) {
      throw new ValidationError({ [NON_FIELD_ERRORS_KEY]: [TOKEN_MESSAGES.blacklisted] })
    }
    return jsonResponse(200, {})
  }
  const described = Object.assign(post, {
    openApi: {
      requestBody: { type: 'object', required: ['token'], properties: { token: STRING } },
      response: { type: 'object', additionalProperties: false },
      errors: [401],
    },
  })
  return tokenView(options, 'Token Verify', described)
}

/**
 * simplejwt's `TokenBlacklistView` (logout): `POST {"refresh"}` blacklists the refresh token,
 * `200 {}`; a bad or already blacklisted token is `401 {"detail": …, "code": "token_not_valid"}`.
 */
export function jwtBlacklistView(options: JwtBlacklistViewOptions): ViewOptions {
  const { codec, blacklist } = options
  const post = async (ctx: RequestContext): Promise<ApiResponse> => {
    const fields = validateCharFields(await ctx.request.body(), { refresh: {} }, ctx.request)
    const refresh = await decodeRefresh(codec, fields.refresh, blacklist)
    // Atomic: of concurrent logouts with one token, one blacklists it, the others are told it already was.
    if (!(await blacklist.blacklist(outstanding(codec, refresh)))) throw jwtAuthenticationFailed(TOKEN_MESSAGES.blacklisted, 'token_not_valid')
    return jsonResponse(200, {})
  }
  const described = Object.assign(post, {
    openApi: {
      requestBody: { type: 'object', required: ['refresh'], properties: { refresh: STRING } },
      response: { type: 'object', additionalProperties: false },
      errors: [401],
    },
  })
  return tokenView(options, 'Token Blacklist', described)
}
