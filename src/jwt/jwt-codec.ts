import { CompactSign, compactVerify, createRemoteJWKSet, decodeProtectedHeader, type CompactVerifyGetKey } from 'jose'
import { ConfigurationError } from '../core/errors.js'
import { randomUUID } from '../crypto/random.js'
import { parsePythonInt } from '../pagination/query-params.js'
import type { ResolvedJwtSettings } from './jwt-settings.js'
import { TOKEN_MESSAGES, TokenError } from './token-error.js'

/** A token's claims, in the order they were set (the order they are signed in). */
export type JwtPayload = Readonly<Record<string, unknown>>

/** simplejwt's token classes by their `token_type` claim: `null` is `UntypedToken` (the verify view). */
export type TokenType = 'access' | 'refresh' | 'sliding'

const MAX_TOKEN_LENGTH = 8192

/** A claim that PyJWT reads with `int()`: a finite JSON number (strings and booleans are refused here, where simplejwt may answer 500). */
function numericClaim(payload: JwtPayload, claim: string): number | undefined {
  if (!(claim in payload)) return undefined
  const value = payload[claim]
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new TokenError(TOKEN_MESSAGES.invalid)
  return value
}

/**
 * `iat` as PyJWT 2.6's `_validate_iat` compares it: a number, or a boolean (Python's `True` is 1).
 * A string passes its `int()` check but fails the comparison (simplejwt answers 500): refused here.
 */
function issuedAtClaim(payload: JwtPayload): number | undefined {
  const value = payload['iat']
  return typeof value === 'boolean' ? Number(value) : numericClaim(payload, 'iat')
}

/**
 * `nbf` as PyJWT 2.6's `_validate_nbf` reads it, `int(payload["nbf"])`: a number (truncated),
 * a boolean, or a string Python's `int()` reads (simplejwt accepts `"1700000000"`, as the
 * comparison with a running simplejwt shows); anything else is refused.
 */
function notBeforeClaim(payload: JwtPayload): number | undefined {
  const value = payload['nbf']
  if (typeof value === 'boolean') return Number(value)
  if (typeof value === 'string') {
    const parsed = parsePythonInt(value)
    if (parsed === null) throw new TokenError(TOKEN_MESSAGES.invalid)
    return Number(parsed)
  }
  const nbf = numericClaim(payload, 'nbf')
  return nbf === undefined ? undefined : Math.trunc(nbf)
}

/**
 * Signs and checks tokens the way simplejwt's `TokenBackend` (PyJWT 2.6) and `Token` do: one
 * algorithm, `iat`/`nbf`/`exp` with the leeway, then the `exp`, `jti` and token-type
 * checks, each failure a `TokenError` with simplejwt's message. With `jwkUrl`, the key is the
 * one of the JWKS document whose `kid` the token's header names (simplejwt's `PyJWKClient`).
 */
export class JwtCodec {
  readonly settings: ResolvedJwtSettings
  /** Seconds since the epoch, as a float; replaceable in tests. */
  private readonly now: () => number
  /** The `jwkUrl` key set: jose fetches it when first asked, then keeps it (10 min; refetched for an unknown `kid`). */
  private readonly remoteKeys: CompactVerifyGetKey | null

  constructor(settings: ResolvedJwtSettings, now: () => number = () => Date.now() / 1000) {
    this.settings = settings
    this.now = now
    this.remoteKeys = settings.jwkUrl === undefined ? null : createRemoteJWKSet(settings.jwkUrl)
  }

  /** Can this codec issue tokens (does it hold the signing key)? The obtain and refresh views need it. */
  get canSign(): boolean {
    return this.settings.signingKey !== null
  }

  /** The current time in seconds (float). */
  currentTime(): number {
    return this.now()
  }

  /**
   * Signs `payload` (adding `aud` and `iss` when configured), header `{"alg":…,"typ":"JWT"}`
   * (PyJWT's, keys sorted), with the public key's `kid` between them for `RS*`/`ES*`, so
   * servers verifying by a JWKS document (simplejwt's `JWK_URL`) find the key.
   * @throws ConfigurationError when the settings hold no signing key (a verifying-only server).
   */
  async encode(payload: JwtPayload): Promise<string> {
    const s = this.settings
    if (s.signingKey === null) throw new ConfigurationError('ERR_INVALID_SETTING', 'JWT setting "signingKey" is needed to issue tokens')
    const claims: Record<string, unknown> = { ...payload }
    if (s.audience !== undefined) claims['aud'] = s.audience
    if (s.issuer !== undefined) claims['iss'] = s.issuer
    const header = s.publicJwk === null ? { alg: s.algorithm, typ: 'JWT' } : { alg: s.algorithm, kid: s.publicJwk.kid, typ: 'JWT' }
    return new CompactSign(new TextEncoder().encode(JSON.stringify(claims))).setProtectedHeader(header).sign(s.signingKey)
  }

  /** A new token's claims: simplejwt's `Token()` (type, `exp`, `iat`, `jti`), at `now` seconds. */
  newPayload(type: TokenType | 'untyped', now: number, lifetime: number): Record<string, unknown> {
    const s = this.settings
    return { [s.tokenTypeClaim]: type, exp: Math.floor(now + lifetime), iat: Math.floor(now), [s.jtiClaim]: newJti() }
  }

  /**
   * simplejwt's `Token(token)`: decodes and verifies `token`, then checks it is of `type`
   * (`null`: any type, `UntypedToken`). Throws `TokenError`; never anything else for any input.
   * `beforeVerify` runs once the signature and registered claims are checked and before
   * `exp`, `jti` and the type are: where simplejwt's `BlacklistMixin` checks the blacklist.
   */
  async decode(token: string, type: TokenType | null, beforeVerify?: (payload: JwtPayload) => Promise<void>): Promise<JwtPayload> {
    const payload = await this.decodeVerified(token)
    await beforeVerify?.(payload)
    const s = this.settings
    // simplejwt's Token.verify.
    this.checkTimeClaim(payload, 'exp')
    if (!(s.jtiClaim in payload)) throw new TokenError(TOKEN_MESSAGES.noId)
    if (type !== null) {
      if (!(s.tokenTypeClaim in payload)) throw new TokenError(TOKEN_MESSAGES.noType)
      if (payload[s.tokenTypeClaim] !== type) throw new TokenError(TOKEN_MESSAGES.wrongType)
    }
    return payload
  }

  /**
   * simplejwt's `Token.check_exp(claim)`: the claim must be there ("Token has no '<claim>'
   * claim") and later than now less the leeway ("Token '<claim>' claim has expired"). A claim
   * that is not a number is "Token is invalid or expired" (simplejwt answers 500).
   */
  checkTimeClaim(payload: JwtPayload, claim: string): void {
    const value = numericClaim(payload, claim)
    if (value === undefined) throw new TokenError(claim === 'exp' ? TOKEN_MESSAGES.noExp : `Token has no '${claim}' claim`)
    if (value <= this.now() - this.settings.leeway) throw new TokenError(claim === 'exp' ? TOKEN_MESSAGES.expired : `Token '${claim}' claim has expired`)
  }

  /** PyJWT's `jwt.decode`: format, algorithm, signature, then the registered claims. */
  private async decodeVerified(token: string): Promise<JwtPayload> {
    const s = this.settings
    if (token.length > MAX_TOKEN_LENGTH || !isCompactJws(token)) throw new TokenError(TOKEN_MESSAGES.invalid)
    let header: ReturnType<typeof decodeProtectedHeader>
    try {
      header = decodeProtectedHeader(token)
    } catch {
      throw new TokenError(TOKEN_MESSAGES.invalid)
    }
    // A missing alg, `none` and any other algorithm are refused before the signature (simplejwt 5.2.2 with PyJWT 2.6 says "invalid or expired" for them too).
    if (header.alg !== s.algorithm) throw new TokenError(TOKEN_MESSAGES.invalid)
    let bytes: Uint8Array
    try {
      if (this.remoteKeys !== null) {
        // PyJWKClient only matches keys by kid: a token without one finds none.
        if (typeof header.kid !== 'string' || header.kid === '') throw new TokenError(TOKEN_MESSAGES.invalid)
        bytes = (await compactVerify(token, this.remoteKeys, { algorithms: [s.algorithm] })).payload
      } else if (s.verifyingKey !== null) {
        bytes = (await compactVerify(token, s.verifyingKey, { algorithms: [s.algorithm] })).payload
      } else {
        throw new TokenError(TOKEN_MESSAGES.invalid)
      }
    } catch {
      // A bad signature, and an unreachable or keyless JWKS document alike (simplejwt: PyJWKClientError, the same message).
      throw new TokenError(TOKEN_MESSAGES.invalid)
    }
    let payload: unknown
    try {
      payload = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
    } catch {
      throw new TokenError(TOKEN_MESSAGES.invalid)
    }
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw new TokenError(TOKEN_MESSAGES.invalid)
    const claims = payload as JwtPayload
    const now = Math.floor(this.now())
    const iat = issuedAtClaim(claims)
    if (iat !== undefined && iat > now + s.leeway) throw new TokenError(TOKEN_MESSAGES.invalid)
    const nbf = notBeforeClaim(claims)
    if (nbf !== undefined && nbf > now + s.leeway) throw new TokenError(TOKEN_MESSAGES.invalid)
    const exp = numericClaim(claims, 'exp')
    if (exp !== undefined && Math.trunc(exp) <= now - s.leeway) throw new TokenError(TOKEN_MESSAGES.invalid)
    if (s.issuer !== undefined && claims['iss'] !== s.issuer) throw new TokenError(TOKEN_MESSAGES.invalid)
    if (s.audience !== undefined && !audienceMatches(claims['aud'], s.audience)) throw new TokenError(TOKEN_MESSAGES.invalid)
    return claims
  }
}

/** PyJWT's `_validate_aud`: a string or a list of strings holding `audience`. */
function audienceMatches(aud: unknown, audience: string): boolean {
  if (typeof aud === 'string') return aud === audience
  return Array.isArray(aud) && aud.every((a) => typeof a === 'string') && aud.includes(audience)
}

/** simplejwt's `uuid4().hex`. */
function newJti(): string {
  return randomUUID().replace(/-/g, '')
}

/**
 * Three dot-separated segments of base64url characters and nothing else. The base64 decoders
 * under jose skip whitespace (`atob`, `Uint8Array.fromBase64`) on some runtimes and not on others,
 * so without this a token with a space inside its signature verified on Bun and not on Node.
 * PyJWT also skips what is not base64; a JWT has one spelling here, on every runtime.
 */
function isCompactJws(token: string): boolean {
  let dots = 0
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i)
    if (c === 0x2e) dots++
    else if (!((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x5f)) return false
  }
  return dots === 2
}
