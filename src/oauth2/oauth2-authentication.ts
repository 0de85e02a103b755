import { decodeProtectedHeader, errors, jwtVerify, type JWTPayload, type JWTVerifyOptions } from 'jose'
import type { ApiRequest } from '../core/api-request.js'
import type { Authenticated, AuthenticationScheme } from '../core/authentication-scheme.js'
import { AuthenticationFailed, ConfigurationError, ServiceUnavailable } from '../core/errors.js'
import type { MaybePromise } from '../core/maybe-promise.js'
import type { JsonObject, OpenApiSecurityScheme } from '../core/openapi-types.js'
import type { User } from '../core/user.js'
import { OAuth2AccessToken, rememberRealm, tokenPrincipal } from './access-token.js'
import { parseBearerAuthorization } from './bearer-header.js'
import { bearerChallenge, checkedRealm } from './challenge.js'
import { Discovery, wellKnownUrls, type ProviderMetadata } from './discovery.js'
import { IntrospectionBusy, Introspector, type IntrospectionAuthMethod } from './introspection.js'
import { JwksCache } from './jwks-cache.js'
import { ProviderOutageLog } from './outage-log.js'
import { checkedProviderUrl, ProviderUnavailable, type FetchLimits } from './provider-fetch.js'

/** The JWS algorithms an access token may be signed with: asymmetric only (a JWKS holds public keys). */
export const OAUTH2_ALGORITHMS = Object.freeze(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const)

/** One of `OAUTH2_ALGORITHMS`. */
export type OAuth2Algorithm = (typeof OAUTH2_ALGORITHMS)[number]

/** RFC 7662 introspection of opaque access tokens. */
export interface OAuth2IntrospectionOptions {
  /** The resource server's client at the authorization server. */
  readonly clientId: string
  readonly clientSecret: string
  /** @default 'client_secret_basic' */
  readonly authMethod?: IntrospectionAuthMethod
  /** The endpoint. @default the discovery document's `introspection_endpoint` */
  readonly endpoint?: string
  /**
   * Longest an answer is kept, in seconds (an active token's never past its `exp`): a revoked
   * token keeps working this long at most. 0 asks on every request. @default 60
   */
  readonly cacheSeconds?: number
  /** Active answers kept at most. @default 10000 */
  readonly maxEntries?: number
  /**
   * Inactive answers kept at most, in a cache of their own: made-up tokens, which any client
   * can send, never push an active answer out. 0 keeps none. @default 1000
   */
  readonly maxInactiveEntries?: number
  /**
   * Introspection requests in flight at most (one per distinct token not cached; requests
   * about the same token share one). A request that would need another answers 503 with
   * `Retry-After: 1` at once, so a flood of random tokens cannot queue unbounded work at the
   * authorization server. @default 32
   */
  readonly maxInFlight?: number
  /**
   * Refuse an active token whose answer names no audience. Introspection answers for any token
   * of the server, so without `aud` a token minted for another API would pass (Keycloak, Ory
   * and Okta leave `aud` out when none was asked for). @default true
   */
  readonly requireAudience?: boolean
  /**
   * Refuse an active token whose answer names no issuer (`iss`); one naming another issuer is
   * always refused. Turn off only for a provider whose answers never carry `iss`. @default true
   */
  readonly requireIssuer?: boolean
}

/** How the scheme describes itself in OpenAPI documents. */
export interface OAuth2OpenApiOptions {
  /** The key in `components.securitySchemes`. @default 'oauth2' */
  readonly name?: string
  /** Scope → description, listed in the scheme (OAuth 2.0 flows) or its description (OpenID Connect). */
  readonly scopes?: Readonly<Record<string, string>>
  /** The token endpoint: with it the scheme is `type: oauth2` with a client-credentials flow; without, `type: openIdConnect`. */
  readonly tokenUrl?: string
  /** The authorization endpoint: adds an authorization-code flow (needs `tokenUrl`). */
  readonly authorizationUrl?: string
}

/** Options of `OAuth2Authentication`. */
export interface OAuth2AuthenticationOptions {
  /**
   * The authorization server's issuer identifier, exactly as its tokens' `iss` and its discovery
   * document write it (Auth0's ends with `/`). `https:`; `http:` only on a loopback address.
   */
  readonly issuer: string
  /** The audiences (`aud`) this API accepts: one of them must be in every token. */
  readonly audience: string | readonly string[]
  /** Signing algorithms accepted. Never `none` or `HS*`. @default OAUTH2_ALGORITHMS */
  readonly algorithms?: readonly OAuth2Algorithm[]
  /** Clock skew allowed on `exp`, `nbf` and `iat`, in seconds. @default 5 */
  readonly leeway?: number
  /**
   * Accept only JWTs typed `at+jwt` (RFC 9068 §4): one typed `JWT`, or not typed at all, is
   * refused. Off by default because Auth0 (unless its RFC 9068 profile is chosen), Okta,
   * Keycloak and Entra ID type their access tokens `JWT`; turn it on when yours types them
   * `at+jwt`, so an ID token is never taken for an access token.
   * @default false
   */
  readonly requireAtJwtType?: boolean
  /** Claims the granted scopes are read from, the first present wins (a space-separated string or an array). @default ['scope', 'scp'] */
  readonly scopeClaims?: readonly string[]
  /** Opaque tokens through RFC 7662 introspection. @default none: only JWT access tokens are accepted */
  readonly introspection?: OAuth2IntrospectionOptions
  /** The metadata document. @default `<issuer>/.well-known/openid-configuration`, then RFC 8414's place */
  readonly discoveryUrl?: string
  /** The JWKS URL. @default the discovery document's `jwks_uri` */
  readonly jwksUri?: string
  /**
   * The user of a verified token. `null` refuses it (401). @default `tokenPrincipal`: no local
   * account, a principal named by `sub` (else `client_id`). `usersByClaim(users)` looks the
   * name up in your user store instead.
   */
  readonly user?: (token: OAuth2AccessToken) => MaybePromise<User | null>
  /** The realm of the `WWW-Authenticate` challenge. @default 'api' */
  readonly realm?: string
  /**
   * Adds why a token was refused to its 401 challenge as RFC 6750's optional `error_description`
   * ("The access token expired", "…is for another audience"): handy while wiring an API to its
   * provider, but it tells any client why its token failed. Off: `error="invalid_token"` alone.
   * @default false
   */
  readonly errorDescription?: boolean
  /** Each request to the authorization server (discovery, JWKS, introspection) gives up after this, in ms. @default 5000 */
  readonly timeoutMs?: number
  /** Largest answer read from the authorization server, in bytes. @default 262144 */
  readonly maxResponseBytes?: number
  /** After a failed request to the authorization server, requests answer 503 for this long before it is asked again, in ms. @default 1000 */
  readonly retryAfterMs?: number
  /** An unknown `kid` fetches the JWKS again at most once per this many seconds. @default 30 */
  readonly jwksCooldownSeconds?: number
  /** The JWKS is fetched again when older than this, in seconds. @default 600 */
  readonly jwksMaxAgeSeconds?: number
  /** Keys read from the JWKS at most. @default 32 */
  readonly maxKeys?: number
  readonly openApi?: OAuth2OpenApiOptions
  /** Where the outage lines go (one when the provider stops answering, one when it answers again). @default console.error */
  readonly log?: (line: string) => void
  /** The `fetch` used to reach the authorization server. @default globalThis.fetch */
  readonly fetch?: typeof fetch
  /** The clock, in ms since the epoch (tests). @default Date.now */
  readonly now?: () => number
}

/** The 503's detail when the authorization server cannot be asked. */
export const PROVIDER_UNAVAILABLE_DETAIL = 'The authorization server is unavailable, try again later.'

/** The 503's detail when `introspection.maxInFlight` requests to the authorization server are in flight. */
export const INTROSPECTION_BUSY_DETAIL = 'Too many access tokens are being checked with the authorization server, try again later.'

const MESSAGES = Object.freeze({
  invalid: 'The access token is invalid.',
  expired: 'The access token expired.',
  notYet: 'The access token is not valid yet.',
  future: 'The access token was issued in the future.',
  audience: 'The access token is not meant for this API.',
  issuer: 'The access token is from another issuer.',
  signature: 'The access token signature is invalid.',
  algorithm: 'The access token signing algorithm is not accepted.',
  unknownKey: 'The access token signing key is unknown.',
  type: 'The token is not an access token.',
  inactive: 'The access token is not active.',
  opaque: 'The access token is not a JWT.',
  noSubject: 'The access token names no subject or client.',
  noUser: 'The access token subject has no account here.',
  inactiveUser: 'The user of the access token is inactive.',
})

function joseMessage(error: errors.JOSEError): string {
  if (error instanceof errors.JWTExpired) return MESSAGES.expired
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return MESSAGES.audience
    if (error.claim === 'iss') return MESSAGES.issuer
    if (error.claim === 'nbf') return MESSAGES.notYet
    return MESSAGES.invalid
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return MESSAGES.signature
  if (error instanceof errors.JWKSNoMatchingKey) return MESSAGES.unknownKey
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) return MESSAGES.algorithm
  return MESSAGES.invalid
}

/**
 * A JWT's `typ` as RFC 9068 compares it: lower case, without `application/`; `undefined` when
 * the header has none, `null` when it is not a string (RFC 7515 §4.1.9 makes it one): a
 * malformed header is refused, not read as one without `typ`.
 */
function normalizedType(typ: unknown): string | undefined | null {
  if (typ === undefined) return undefined
  if (typeof typ !== 'string') return null
  const lower = typ.toLowerCase()
  return lower.startsWith('application/') ? lower.slice('application/'.length) : lower
}

function audiences(aud: unknown): readonly string[] {
  if (typeof aud === 'string') return [aud]
  return Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : []
}

function nonNegative(value: number | undefined, fallback: number, name: string): number {
  const n = value ?? fallback
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) throw new ConfigurationError('ERR_INVALID_SETTING', `${name} must be a finite number >= 0, got ${String(value)}`)
  return n
}

/**
 * An OAuth 2.0 resource server (RFC 6750): `Authorization: Bearer <access token>` where the
 * token was issued by an external authorization server (Auth0, Okta, Keycloak, Entra ID, any
 * OpenID provider). A JWT access token (RFC 9068) is verified against the issuer's JWKS, found
 * through its discovery document: signature (the `algorithms` only), `iss`, `aud`, `exp`, `nbf`,
 * `iat`, `typ`. An opaque token is asked about by RFC 7662 introspection when `introspection`
 * is set. `ctx.user` is `user(token)` (a stateless principal by default), `ctx.auth` the
 * `OAuth2AccessToken` with the verified claims and scopes. Scope permissions:
 * `TokenHasScope`, `TokenHasReadWriteScope`.
 *
 * No `Bearer` header: not attempted (`null`). A bad token: 401 with
 * `WWW-Authenticate: Bearer realm="api", error="invalid_token"` (the reason as
 * `error_description` too with `errorDescription: true`).
 * The authorization server unreachable or answering 5xx when it must be asked: 503
 * `{"detail": "The authorization server is unavailable, try again later."}`, never a hang
 * (`timeoutMs`) or a 500, logged once per outage.
 *
 * @example
 * const oauth2 = new OAuth2Authentication({ issuer: 'https://example.eu.auth0.com/', audience: 'https://api.example.com' })
 * api.view({ handlers, authentication: [oauth2], permissions: [new TokenHasScope('read:notes')] })
 */
export class OAuth2Authentication implements AuthenticationScheme<OAuth2AccessToken> {
  readonly name: string = 'OAuth2Authentication'
  readonly issuer: string
  readonly audiences: readonly string[]
  private readonly algorithms: readonly OAuth2Algorithm[]
  private readonly leeway: number
  private readonly requireAtJwtType: boolean
  private readonly scopeClaims: readonly string[]
  private readonly realm: string
  private readonly errorDescription: boolean
  private readonly now: () => number
  private readonly userOf: (token: OAuth2AccessToken) => MaybePromise<User | null>
  private readonly discovery: Discovery
  private readonly jwksCache: JwksCache
  private readonly introspector: Introspector | null
  private readonly requireIntrospectedAudience: boolean
  private readonly requireIntrospectedIssuer: boolean
  private readonly openApi: OAuth2OpenApiOptions
  private readonly discoveryUrl: string | undefined
  /** Why each failed request failed, for its challenge's `error_description`. */
  private readonly failures = new WeakMap<ApiRequest, string>()

  constructor(options: OAuth2AuthenticationOptions) {
    this.issuer = checkedProviderUrl(options.issuer, 'issuer')
    const audience = typeof options.audience === 'string' ? [options.audience] : [...options.audience]
    if (audience.length === 0 || audience.some((a) => typeof a !== 'string' || a === '')) throw new ConfigurationError('ERR_INVALID_SETTING', 'audience must name at least one audience')
    this.audiences = Object.freeze(audience)
    this.algorithms = Object.freeze([...(options.algorithms ?? OAUTH2_ALGORITHMS)])
    const unknown = this.algorithms.filter((a) => !(OAUTH2_ALGORITHMS as readonly string[]).includes(a))
    if (this.algorithms.length === 0 || unknown.length > 0) {
      throw new ConfigurationError('ERR_INVALID_SETTING', `algorithms must be some of ${OAUTH2_ALGORITHMS.join(', ')} (never none or HS*: a JWKS holds public keys), got ${JSON.stringify(options.algorithms)}`)
    }
    this.leeway = nonNegative(options.leeway, 5, 'leeway')
    this.requireAtJwtType = options.requireAtJwtType ?? false
    this.scopeClaims = Object.freeze([...(options.scopeClaims ?? ['scope', 'scp'])])
    this.realm = checkedRealm(options.realm ?? 'api')
    this.errorDescription = options.errorDescription === true
    this.now = options.now ?? Date.now
    this.userOf = options.user ?? tokenPrincipal
    this.openApi = options.openApi ?? {}
    this.discoveryUrl = options.discoveryUrl === undefined ? undefined : checkedProviderUrl(options.discoveryUrl, 'discoveryUrl')
    const jwksUri = options.jwksUri === undefined ? undefined : checkedProviderUrl(options.jwksUri, 'jwksUri')
    const limits: FetchLimits = {
      timeoutMs: nonNegative(options.timeoutMs, 5000, 'timeoutMs'),
      maxBytes: nonNegative(options.maxResponseBytes, 256 * 1024, 'maxResponseBytes'),
      fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    }
    const retryAfterMs = nonNegative(options.retryAfterMs, 1000, 'retryAfterMs')
    const outages = new ProviderOutageLog(this.issuer, options.log ?? ((line) => console.error(line)))
    this.discovery = new Discovery({ issuer: this.issuer, discoveryUrl: this.discoveryUrl, limits, retryAfterMs, now: this.now })
    const metadata = (field: keyof Omit<ProviderMetadata, 'issuer'>, name: string) => async (): Promise<string> => {
      const value = (await this.discovery.get())[field]
      if (value === null) throw new ProviderUnavailable(`discovery: the document has no ${name}`)
      return value
    }
    this.jwksCache = new JwksCache({
      uri: jwksUri === undefined ? metadata('jwksUri', 'jwks_uri') : async () => jwksUri,
      limits,
      cooldownMs: nonNegative(options.jwksCooldownSeconds, 30, 'jwksCooldownSeconds') * 1000,
      maxAgeMs: nonNegative(options.jwksMaxAgeSeconds, 600, 'jwksMaxAgeSeconds') * 1000,
      maxKeys: nonNegative(options.maxKeys, 32, 'maxKeys'),
      retryAfterMs,
      now: this.now,
      outages,
    })
    const introspection = options.introspection
    if (introspection === undefined) {
      this.introspector = null
      this.requireIntrospectedAudience = true
      this.requireIntrospectedIssuer = true
    } else {
      if (typeof introspection.clientId !== 'string' || introspection.clientId === '' || typeof introspection.clientSecret !== 'string') {
        throw new ConfigurationError('ERR_INVALID_SETTING', 'introspection needs a clientId and a clientSecret')
      }
      const endpoint = introspection.endpoint === undefined ? undefined : checkedProviderUrl(introspection.endpoint, 'introspection.endpoint')
      this.introspector = new Introspector({
        endpoint: endpoint === undefined ? metadata('introspectionEndpoint', 'introspection_endpoint') : async () => endpoint,
        clientId: introspection.clientId,
        clientSecret: introspection.clientSecret,
        authMethod: introspection.authMethod ?? 'client_secret_basic',
        limits,
        cacheMs: nonNegative(introspection.cacheSeconds, 60, 'introspection.cacheSeconds') * 1000,
        maxEntries: Math.max(1, nonNegative(introspection.maxEntries, 10_000, 'introspection.maxEntries')),
        maxInactiveEntries: nonNegative(introspection.maxInactiveEntries, 1000, 'introspection.maxInactiveEntries'),
        maxInFlight: Math.max(1, nonNegative(introspection.maxInFlight, 32, 'introspection.maxInFlight')),
        now: this.now,
        outages,
      })
      this.requireIntrospectedAudience = introspection.requireAudience ?? true
      this.requireIntrospectedIssuer = introspection.requireIssuer ?? true
    }
  }

  /** How many times the JWKS was fetched (or a fetch tried): bounded whatever tokens arrive. */
  get jwksFetches(): number {
    return this.jwksCache.fetches
  }

  /** How many introspection requests were made. */
  get introspections(): number {
    return this.introspector?.requests ?? 0
  }

  async authenticate(req: ApiRequest): Promise<Authenticated<OAuth2AccessToken> | null> {
    const credential = parseBearerAuthorization(req.headers.get('authorization'))
    if (credential.kind === 'absent') return null
    if (credential.kind === 'malformed') throw this.invalid(req, credential.reason)
    let token: OAuth2AccessToken
    try {
      token = await this.verified(req, credential.token)
    } catch (error) {
      if (error instanceof ProviderUnavailable) throw new ServiceUnavailable(PROVIDER_UNAVAILABLE_DETAIL, 'authorization_server_unavailable')
      // Not an outage: the provider is answering, just not to more than maxInFlight at once.
      if (error instanceof IntrospectionBusy) throw new ServiceUnavailable(INTROSPECTION_BUSY_DETAIL, 'authorization_server_unavailable', { headers: [['Retry-After', '1']] })
      if (error instanceof errors.JOSEError) throw this.invalid(req, joseMessage(error))
      throw error
    }
    rememberRealm(token, this.realm)
    const user = await this.userOf(token)
    if (user === null) throw this.invalid(req, MESSAGES.noUser)
    if (!user.isActive) throw this.invalid(req, MESSAGES.inactiveUser)
    return { user, auth: token, expiresAt: token.expiresAt }
  }

  /** The verified token, or a 401 (`ApiError`), a jose error or `ProviderUnavailable`. */
  private async verified(req: ApiRequest, raw: string): Promise<OAuth2AccessToken> {
    const header = jwsHeader(raw)
    if (header !== null) return this.checked(req, raw, 'jwt', await this.verifiedJwt(req, raw, header))
    if (this.introspector === null) throw this.invalid(req, MESSAGES.opaque)
    const claims = await this.introspector.introspect(raw)
    if (claims === null) throw this.invalid(req, MESSAGES.inactive)
    const failure = this.introspectedFailure(claims)
    if (failure !== null) throw this.invalid(req, failure)
    return this.checked(req, raw, 'opaque', claims)
  }

  private async verifiedJwt(req: ApiRequest, raw: string, header: Readonly<Record<string, unknown>>): Promise<JWTPayload> {
    const typ = normalizedType(header['typ'])
    // Strict: `at+jwt` only, so an ID token (typed `JWT` or not at all) whose `aud` is this API is never taken for an access token.
    if (this.requireAtJwtType ? typ !== 'at+jwt' : typ !== undefined && typ !== 'at+jwt' && typ !== 'jwt') throw this.invalid(req, MESSAGES.type)
    // Checked before any key is looked up: `none`, `HS256` with the public key as secret, and anything unlisted.
    if (!(this.algorithms as readonly unknown[]).includes(header['alg'])) throw this.invalid(req, MESSAGES.algorithm)
    const options: JWTVerifyOptions = {
      algorithms: [...this.algorithms],
      issuer: this.issuer,
      audience: [...this.audiences],
      clockTolerance: this.leeway,
      requiredClaims: ['exp'],
      currentDate: new Date(this.now()),
    }
    let payload: JWTPayload
    try {
      payload = (await jwtVerify(raw, (h, t) => this.jwksCache.key(h, t), options)).payload
    } catch (error) {
      if (!(error instanceof errors.JWKSMultipleMatchingKeys)) throw error
      // No `kid` and several keys of the algorithm's type: each is tried.
      payload = await this.verifiedWithAny(raw, error, options)
    }
    const iat = payload.iat
    if (typeof iat === 'number' && iat > this.now() / 1000 + this.leeway) throw this.invalid(req, MESSAGES.future)
    return payload
  }

  private async verifiedWithAny(raw: string, candidates: errors.JWKSMultipleMatchingKeys, options: JWTVerifyOptions): Promise<JWTPayload> {
    for await (const key of candidates) {
      try {
        return (await jwtVerify(raw, key, options)).payload
      } catch (error) {
        if (!(error instanceof errors.JWSSignatureVerificationFailed)) throw error
      }
    }
    throw new errors.JWSSignatureVerificationFailed()
  }

  /** Why an active introspection answer is still refused, or `null`. */
  private introspectedFailure(claims: Readonly<Record<string, unknown>>): string | null {
    const now = this.now() / 1000
    const iss = claims['iss']
    if (iss === undefined ? this.requireIntrospectedIssuer : iss !== this.issuer) return MESSAGES.issuer
    const aud = audiences(claims['aud'])
    if (aud.length === 0 ? this.requireIntrospectedAudience : !aud.some((a) => this.audiences.includes(a))) return MESSAGES.audience
    const { exp, nbf, token_type: tokenType } = claims
    if (typeof exp === 'number' && exp <= now - this.leeway) return MESSAGES.expired
    if (typeof nbf === 'number' && nbf > now + this.leeway) return MESSAGES.notYet
    // RFC 7662's token_type is optional; when given it must be a bearer access token (not a refresh token, not DPoP).
    if (typeof tokenType === 'string' && !['bearer', 'access_token'].includes(tokenType.toLowerCase())) return MESSAGES.type
    return null
  }

  /** The token object of verified claims, with its scopes; one that names neither subject nor client is refused. */
  private checked(req: ApiRequest, raw: string, format: 'jwt' | 'opaque', claims: Readonly<Record<string, unknown>>): OAuth2AccessToken {
    const token = new OAuth2AccessToken({ token: raw, format, claims: Object.freeze({ ...claims }), scopes: this.scopesOf(claims) })
    if (token.subject === null && token.clientId === null) throw this.invalid(req, MESSAGES.noSubject)
    return token
  }

  private scopesOf(claims: Readonly<Record<string, unknown>>): readonly string[] {
    for (const name of this.scopeClaims) {
      const value = claims[name]
      if (typeof value === 'string') return value.split(' ').filter((s) => s !== '')
      if (Array.isArray(value)) return value.filter((s): s is string => typeof s === 'string' && s !== '')
    }
    return []
  }

  /** A 401 `invalid_token` with `message`, remembered for the request's challenge. */
  private invalid(req: ApiRequest, message: string): AuthenticationFailed {
    this.failures.set(req, message)
    return new AuthenticationFailed(message, 'invalid_token')
  }

  /**
   * `Bearer realm="api"`; after this scheme refused the request's token, with RFC 6750's
   * `error="invalid_token"` (and the reason as `error_description` with `errorDescription`).
   */
  authenticateHeader(req: ApiRequest): string {
    const failure = this.failures.get(req)
    if (failure === undefined) return bearerChallenge(this.realm)
    return bearerChallenge(this.realm, this.errorDescription ? { error: 'invalid_token', description: failure } : { error: 'invalid_token' })
  }

  /**
   * OpenAPI: `oauth2` (`openApi.name`), `type: openIdConnect` at the discovery document, or
   * `type: oauth2` with client-credentials (and authorization-code) flows when `openApi.tokenUrl`
   * is set; the scopes a route's `TokenHasScope` requires are listed in its security requirement.
   */
  openApiSecurity(): readonly OpenApiSecurityScheme[] {
    const { name = 'oauth2', scopes = {}, tokenUrl, authorizationUrl } = this.openApi
    let scheme: JsonObject
    if (tokenUrl === undefined) {
      const listed = Object.entries(scopes).map(([scope, text]) => `\`${scope}\`: ${text}`)
      scheme = {
        type: 'openIdConnect',
        openIdConnectUrl: this.discoveryUrl ?? (wellKnownUrls(this.issuer)[0] as string),
        description: `Access tokens from ${this.issuer}.${listed.length === 0 ? '' : ` Scopes: ${listed.join('; ')}.`}`,
      }
    } else {
      const flows: Record<string, JsonObject> = { clientCredentials: { tokenUrl, scopes: { ...scopes } } }
      if (authorizationUrl !== undefined) flows['authorizationCode'] = { authorizationUrl, tokenUrl, scopes: { ...scopes } }
      scheme = { type: 'oauth2', description: `Access tokens from ${this.issuer}.`, flows }
    }
    return [{ name, scheme }]
  }

  /** The 503 of an unreachable authorization server, for OpenAPI documents. */
  openApiErrorStatuses(): readonly number[] {
    return [503]
  }
}

/** The protected header of a JWS in compact form, or `null` when `raw` is not one (an opaque token). */
function jwsHeader(raw: string): Readonly<Record<string, unknown>> | null {
  if (raw.split('.').length !== 3) return null
  try {
    const header = decodeProtectedHeader(raw) as Record<string, unknown>
    return typeof header['alg'] === 'string' ? header : null
  } catch {
    return null
  }
}
