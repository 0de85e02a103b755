import type { KeyObject } from 'node:crypto'
import { ConfigurationError } from '../core/errors.js'
import { isAsymmetric, JWT_ALGORITHMS, privateKeyOf, publicHalf, publicJwkOf, publicKeyOf, sameKey, type JwtAlgorithm, type PublicJwk } from './jwt-keys.js'

/**
 * simplejwt's `SIMPLE_JWT` settings, under camel-case names (`ACCESS_TOKEN_LIFETIME` is
 * `accessTokenLifetime`, in seconds). Every default is simplejwt 5.2.2's. With HS256 the
 * `signingKey` is a Django app's `SECRET_KEY` when its clients move over; with `RS*`/`ES*`
 * it is the private key (PEM) and `verifyingKey` the public one, as in simplejwt.
 */
export interface JwtSettings {
  /**
   * `SIGNING_KEY`: the HMAC secret for `HS*` (required: at least 32 bytes for HS256, 48 for
   * HS384, 64 for HS512, the hash's size, as RFC 7518 §3.2 requires and PyJWT warns; a shorter
   * one is a `ConfigurationError`), or the private key in PEM for `RS*`/`ES*` (leave it out on
   * a server that only verifies tokens: give `verifyingKey` or `jwkUrl` then). Without it no
   * token can be issued.
   */
  readonly signingKey?: string
  /** `ALGORITHM`: one of simplejwt's (`HS256` … `ES512`). @default 'HS256' */
  readonly algorithm?: JwtAlgorithm
  /**
   * `VERIFYING_KEY`: the public key in PEM (or an X.509 certificate) tokens are checked with,
   * for `RS*`/`ES*`. @default the public half of `signingKey`
   */
  readonly verifyingKey?: string
  /**
   * `JWK_URL`: a JWKS document (an identity provider's, or another gatehouse's `jwksView`)
   * tokens are checked against, by their header's `kid`, for `RS*`/`ES*`. Fetched when first
   * needed and kept 10 minutes; an unknown `kid` fetches it again (at most every 30 s).
   * Takes precedence over `verifyingKey`, as in simplejwt. Must be `https:` (whoever can
   * change a key set fetched in clear can sign any token) unless `allowInsecureJwkUrl`. @default none
   */
  readonly jwkUrl?: string
  /**
   * Accept an `http:` `jwkUrl` (a key server on the same host or a private network, in
   * tests). @default false
   */
  readonly allowInsecureJwkUrl?: boolean
  /** `ACCESS_TOKEN_LIFETIME` in seconds. @default 300 */
  readonly accessTokenLifetime?: number
  /** `REFRESH_TOKEN_LIFETIME` in seconds. @default 86400 */
  readonly refreshTokenLifetime?: number
  /** `SLIDING_TOKEN_LIFETIME` in seconds: how long a sliding token authenticates after it is issued or refreshed. @default 300 */
  readonly slidingTokenLifetime?: number
  /** `SLIDING_TOKEN_REFRESH_LIFETIME` in seconds: how long after it was first issued a sliding token can be refreshed. @default 86400 */
  readonly slidingTokenRefreshLifetime?: number
  /** `SLIDING_TOKEN_REFRESH_EXP_CLAIM`: the claim holding that limit. @default 'refresh_exp' */
  readonly slidingTokenRefreshExpClaim?: string
  /**
   * `AUTH_TOKEN_CLASSES`: the tokens `JWTAuthentication` accepts, tried in this order.
   * `'SlidingToken'` makes the scheme accept sliding tokens (from `jwtObtainSlidingView`).
   * @default ['AccessToken']
   */
  readonly authTokenClasses?: readonly AuthTokenClass[]
  /** `ROTATE_REFRESH_TOKENS`: the refresh view answers a new refresh token too. @default false */
  readonly rotateRefreshTokens?: boolean
  /**
   * `BLACKLIST_AFTER_ROTATION`: with rotation and a blacklist store, the refresh view blacklists
   * the refresh token it was given, and the verify view refuses blacklisted tokens. @default false
   */
  readonly blacklistAfterRotation?: boolean
  /**
   * `UPDATE_LAST_LOGIN`: the obtain view sets the user's `last_login` (the user store's
   * `updateLastLogin`, which it must then have). @default false
   */
  readonly updateLastLogin?: boolean
  /** `AUTH_HEADER_TYPES`: keywords of `Authorization: <type> <token>`, matched case-sensitively; the first is the challenge's. @default ['Bearer'] */
  readonly authHeaderTypes?: readonly string[]
  /** `USER_ID_CLAIM`. @default 'user_id' */
  readonly userIdClaim?: string
  /** `TOKEN_TYPE_CLAIM`. @default 'token_type' */
  readonly tokenTypeClaim?: string
  /** `JTI_CLAIM`. @default 'jti' */
  readonly jtiClaim?: string
  /** `LEEWAY` in seconds, for `exp`, `iat` and `nbf`. @default 0 */
  readonly leeway?: number
  /** `AUDIENCE`: when set, tokens carry it as `aud` and must match it. @default none */
  readonly audience?: string
  /** `ISSUER`: when set, tokens carry it as `iss` and must match it. @default none */
  readonly issuer?: string
  /**
   * `CHECK_REVOKE_TOKEN` (simplejwt 5.3): tokens carry, under `revokeTokenClaim`, simplejwt's
   * digest of the user's stored password hash (MD5 of the encoded hash, upper-case hex: of the
   * salted hash, never of the password), and `JWTAuthentication` and the refresh views refuse a
   * token whose digest no longer matches, `401 {"detail": "The user's password has been
   * changed.", "code": "password_changed"}`: a password change (or reset, or an unusable
   * password set) ends every access, refresh and sliding token issued before it. Costs one
   * store read per authenticated request. Tokens issued without the claim (before it was
   * turned on) are refused too. Needs a user store with `storedPasswordHash` (`KyselyUserStore`
   * has it); the digests match simplejwt's when both read the same users table.
   * @default false
   */
  readonly checkRevokeToken?: boolean
  /** `REVOKE_TOKEN_CLAIM`: the claim `checkRevokeToken` writes and reads. @default 'hash_password' */
  readonly revokeTokenClaim?: string
}

/** simplejwt's token classes `AUTH_TOKEN_CLASSES` can name. */
export type AuthTokenClass = 'AccessToken' | 'SlidingToken'

/** `JwtSettings` with every default filled in, the keys parsed. Frozen. */
export interface ResolvedJwtSettings {
  readonly algorithm: JwtAlgorithm
  /** The HMAC secret's bytes, or the private key; `null`: this server only verifies. */
  readonly signingKey: Uint8Array | KeyObject | null
  /** What tokens are checked with: the HMAC secret, or the public key; `null` when only `jwkUrl` says. */
  readonly verifyingKey: Uint8Array | KeyObject | null
  /** The public key as a JWK (with its `kid`), for `RS*`/`ES*` with a key: what `jwksView` serves. */
  readonly publicJwk: PublicJwk | null
  readonly jwkUrl: URL | undefined
  readonly accessTokenLifetime: number
  readonly refreshTokenLifetime: number
  readonly slidingTokenLifetime: number
  readonly slidingTokenRefreshLifetime: number
  readonly slidingTokenRefreshExpClaim: string
  readonly authTokenClasses: readonly AuthTokenClass[]
  readonly rotateRefreshTokens: boolean
  readonly blacklistAfterRotation: boolean
  readonly updateLastLogin: boolean
  readonly authHeaderTypes: readonly string[]
  readonly userIdClaim: string
  readonly tokenTypeClaim: string
  readonly jtiClaim: string
  readonly leeway: number
  readonly audience: string | undefined
  readonly issuer: string | undefined
  readonly checkRevokeToken: boolean
  readonly revokeTokenClaim: string
}

function seconds(value: number | undefined, fallback: number, name: string): number {
  const v = value ?? fallback
  if (!Number.isFinite(v) || v < 0) throw new ConfigurationError('ERR_INVALID_SETTING', `JWT setting "${name}" must be a number of seconds >= 0`)
  return v
}

function claimName(value: string | undefined, fallback: string, name: string): string {
  const v = value ?? fallback
  if (typeof v !== 'string' || v === '') throw invalid(`JWT setting "${name}" must be a non-empty string`)
  return v
}

const AUTH_TOKEN_CLASSES: readonly AuthTokenClass[] = ['AccessToken', 'SlidingToken']

function authTokenClasses(value: readonly AuthTokenClass[] | undefined): readonly AuthTokenClass[] {
  const classes = value ?? ['AccessToken']
  // An empty list would refuse every token with an empty "messages": a mistake, said at start-up.
  if (!Array.isArray(classes) || classes.length === 0 || classes.some((c) => !AUTH_TOKEN_CLASSES.includes(c))) {
    throw invalid(`JWT setting "authTokenClasses" must list one or more of ${AUTH_TOKEN_CLASSES.join(', ')}`)
  }
  return Object.freeze([...new Set(classes)])
}

/** The keys of `settings`, parsed and checked against each other and the algorithm. */
function resolveKeys(settings: JwtSettings, algorithm: JwtAlgorithm): Pick<ResolvedJwtSettings, 'signingKey' | 'verifyingKey' | 'publicJwk' | 'jwkUrl'> {
  const { signingKey, verifyingKey, jwkUrl } = settings
  if (signingKey !== undefined && (typeof signingKey !== 'string' || signingKey === '')) throw invalid('JWT setting "signingKey" must be a non-empty string')
  if (!isAsymmetric(algorithm)) {
    if (signingKey === undefined) throw invalid('JWT setting "signingKey" must be a non-empty string')
    if (verifyingKey !== undefined || jwkUrl !== undefined) throw invalid(`JWT settings "verifyingKey" and "jwkUrl" are for RS*/ES* algorithms, not ${algorithm} (whose signingKey also verifies)`)
    const key = new TextEncoder().encode(signingKey)
    const minimum = HMAC_KEY_BYTES[algorithm] ?? 64
    // PyJWT 2.10 only warns below the RFC's minimum; here it is refused.
    if (key.length < minimum) throw invalid(`JWT setting "signingKey" for ${algorithm} must be at least ${minimum} bytes (it is ${key.length}); a Django SECRET_KEY is 50`)
    return { signingKey: key, verifyingKey: key, publicJwk: null, jwkUrl: undefined }
  }
  const privateKey = signingKey === undefined ? null : privateKeyOf(signingKey, algorithm)
  let publicKey = verifyingKey === undefined ? null : publicKeyOf(verifyingKey, algorithm)
  if (privateKey !== null) {
    const derived = publicHalf(privateKey, algorithm)
    // A mismatched pair would refuse every token the server issues: say so at start-up.
    if (publicKey !== null && !sameKey(publicKey, derived)) throw invalid('JWT setting "verifyingKey" is not the public half of "signingKey"')
    publicKey = derived
  }
  let url: URL | undefined
  if (jwkUrl !== undefined) {
    try {
      url = new URL(jwkUrl)
    } catch {
      throw invalid('JWT setting "jwkUrl" must be an absolute https URL')
    }
    if (url.protocol === 'http:') {
      if (settings.allowInsecureJwkUrl !== true) throw invalid('JWT setting "jwkUrl" must be an https URL (keys fetched over http can be replaced on the way); set "allowInsecureJwkUrl" to allow http')
    } else if (url.protocol !== 'https:') {
      throw invalid('JWT setting "jwkUrl" must be an absolute https URL')
    }
  }
  if (publicKey === null && url === undefined) throw invalid(`JWT settings for ${algorithm} need "signingKey" (a private key), "verifyingKey" or "jwkUrl"`)
  return { signingKey: privateKey, verifyingKey: publicKey, publicJwk: publicKey === null ? null : publicJwkOf(publicKey, algorithm), jwkUrl: url }
}

/** The shortest HMAC secret per algorithm: the hash's output size (RFC 7518 §3.2). */
const HMAC_KEY_BYTES: Readonly<Record<string, number>> = { HS256: 32, HS384: 48, HS512: 64 }

function invalid(message: string): ConfigurationError {
  return new ConfigurationError('ERR_INVALID_SETTING', message)
}

/** Checks `settings` once, at start-up (keys parsed, lifetimes checked), and fills in simplejwt's defaults. */
export function resolveJwtSettings(settings: JwtSettings): ResolvedJwtSettings {
  const algorithm = settings.algorithm ?? 'HS256'
  if (!(JWT_ALGORITHMS as readonly string[]).includes(algorithm)) {
    throw invalid(`JWT setting "algorithm" must be one of ${JWT_ALGORITHMS.join(', ')}, not ${String(algorithm)}`)
  }
  const keys = resolveKeys(settings, algorithm)
  const authHeaderTypes = settings.authHeaderTypes ?? ['Bearer']
  if (authHeaderTypes.length === 0 || authHeaderTypes.some((t) => !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(t))) {
    throw new ConfigurationError('ERR_INVALID_SETTING', 'JWT setting "authHeaderTypes" must list one or more header keywords')
  }
  return Object.freeze({
    algorithm,
    ...keys,
    accessTokenLifetime: seconds(settings.accessTokenLifetime, 300, 'accessTokenLifetime'),
    refreshTokenLifetime: seconds(settings.refreshTokenLifetime, 86400, 'refreshTokenLifetime'),
    slidingTokenLifetime: seconds(settings.slidingTokenLifetime, 300, 'slidingTokenLifetime'),
    slidingTokenRefreshLifetime: seconds(settings.slidingTokenRefreshLifetime, 86400, 'slidingTokenRefreshLifetime'),
    slidingTokenRefreshExpClaim: claimName(settings.slidingTokenRefreshExpClaim, 'refresh_exp', 'slidingTokenRefreshExpClaim'),
    authTokenClasses: authTokenClasses(settings.authTokenClasses),
    rotateRefreshTokens: settings.rotateRefreshTokens ?? false,
    blacklistAfterRotation: settings.blacklistAfterRotation ?? false,
    updateLastLogin: settings.updateLastLogin ?? false,
    authHeaderTypes: Object.freeze([...authHeaderTypes]),
    userIdClaim: settings.userIdClaim ?? 'user_id',
    tokenTypeClaim: settings.tokenTypeClaim ?? 'token_type',
    jtiClaim: settings.jtiClaim ?? 'jti',
    leeway: seconds(settings.leeway, 0, 'leeway'),
    audience: settings.audience,
    issuer: settings.issuer,
    checkRevokeToken: settings.checkRevokeToken ?? false,
    revokeTokenClaim: claimName(settings.revokeTokenClaim, 'hash_password', 'revokeTokenClaim'),
  })
}
