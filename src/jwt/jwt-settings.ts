import { ConfigurationError } from '../core/errors.js'

/**
 * simplejwt's `SIMPLE_JWT` settings, under camel-case names (`ACCESS_TOKEN_LIFETIME` is
 * `accessTokenLifetime`, in seconds). Every default is simplejwt 5.2.2's. HS256 only: the
 * `signingKey` is a Django app's `SECRET_KEY` when its clients move over.
 */
export interface JwtSettings {
  /** `SIGNING_KEY`: the HMAC secret (at least 32 bytes advised). Required. */
  readonly signingKey: string
  /** `ALGORITHM`. Only HMAC algorithms for now. @default 'HS256' */
  readonly algorithm?: 'HS256' | 'HS384' | 'HS512'
  /** `ACCESS_TOKEN_LIFETIME` in seconds. @default 300 */
  readonly accessTokenLifetime?: number
  /** `REFRESH_TOKEN_LIFETIME` in seconds. @default 86400 */
  readonly refreshTokenLifetime?: number
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
}

/** `JwtSettings` with every default filled in (the key as bytes). Frozen. */
export interface ResolvedJwtSettings {
  readonly key: Uint8Array
  readonly algorithm: 'HS256' | 'HS384' | 'HS512'
  readonly accessTokenLifetime: number
  readonly refreshTokenLifetime: number
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
}

function seconds(value: number | undefined, fallback: number, name: string): number {
  const v = value ?? fallback
  if (!Number.isFinite(v) || v < 0) throw new ConfigurationError('ERR_INVALID_SETTING', `JWT setting "${name}" must be a number of seconds >= 0`)
  return v
}

/** Checks `settings` once, at start-up, and fills in simplejwt's defaults. */
export function resolveJwtSettings(settings: JwtSettings): ResolvedJwtSettings {
  if (typeof settings.signingKey !== 'string' || settings.signingKey === '') {
    throw new ConfigurationError('ERR_INVALID_SETTING', 'JWT setting "signingKey" must be a non-empty string')
  }
  const algorithm = settings.algorithm ?? 'HS256'
  if (!['HS256', 'HS384', 'HS512'].includes(algorithm)) {
    throw new ConfigurationError('ERR_INVALID_SETTING', `JWT setting "algorithm" must be HS256, HS384 or HS512, not ${String(algorithm)}`)
  }
  const authHeaderTypes = settings.authHeaderTypes ?? ['Bearer']
  if (authHeaderTypes.length === 0 || authHeaderTypes.some((t) => !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(t))) {
    throw new ConfigurationError('ERR_INVALID_SETTING', 'JWT setting "authHeaderTypes" must list one or more header keywords')
  }
  return Object.freeze({
    key: new TextEncoder().encode(settings.signingKey),
    algorithm,
    accessTokenLifetime: seconds(settings.accessTokenLifetime, 300, 'accessTokenLifetime'),
    refreshTokenLifetime: seconds(settings.refreshTokenLifetime, 86400, 'refreshTokenLifetime'),
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
  })
}
