import { createLocalJWKSet, errors, type FlattenedJWSInput, type JWK, type JWSHeaderParameters } from 'jose'
import type { ProviderOutageLog } from './outage-log.js'
import { fetchProviderJson, ProviderUnavailable, type FetchLimits } from './provider-fetch.js'

export interface JwksCacheOptions {
  /** The JWKS URL (from discovery: may itself throw `ProviderUnavailable`). */
  readonly uri: () => Promise<string>
  readonly limits: FetchLimits
  /** An unknown `kid` fetches the set again only when the last fetch began at least this long ago. */
  readonly cooldownMs: number
  /** Keys older than this are fetched again (kept, and still used, while the provider does not answer). */
  readonly maxAgeMs: number
  /** Keys kept from one set; those past it are ignored. */
  readonly maxKeys: number
  /** After a failed fetch, requests for this long fail at once instead of asking again. */
  readonly retryAfterMs: number
  readonly now: () => number
  readonly outages: ProviderOutageLog
}

type KeySet = ReturnType<typeof createLocalJWKSet>

const PUBLIC_KEY_TYPES: ReadonlySet<unknown> = new Set(['RSA', 'EC', 'OKP'])

/** A JWK that can verify a signature: a public RSA, EC or OKP key, not marked for encryption. */
function isVerificationKey(value: unknown): value is JWK {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const jwk = value as Record<string, unknown>
  // `d` is a private key's (published by mistake, or a trap): never imported. `oct` keys are secrets.
  return PUBLIC_KEY_TYPES.has(jwk['kty']) && (jwk['use'] === undefined || jwk['use'] === 'sig') && jwk['d'] === undefined
}

/**
 * The issuer's signing keys, fetched from its JWKS and kept. A token whose `kid` is not in the
 * set fetches it again, since the provider may have rotated its keys, but at most once per
 * `cooldownMs` whatever the `kid`s: a flood of tokens with made-up `kid`s costs the provider
 * one request per cooldown, and each of them a 401 from the cached set meanwhile. Concurrent
 * fetches are one. Fetches are bounded by `limits`, the set by `maxKeys`.
 */
export class JwksCache {
  private keys: KeySet | null = null
  private fetchedAt = Number.NEGATIVE_INFINITY
  private attemptedAt = Number.NEGATIVE_INFINITY
  private pending: Promise<KeySet> | null = null
  private failure: { readonly error: ProviderUnavailable; readonly until: number } | null = null
  private fetchCount = 0

  constructor(private readonly options: JwksCacheOptions) {}

  /** How many times the set was fetched (or a fetch was tried). */
  get fetches(): number {
    return this.fetchCount
  }

  /**
   * The key for a token's header (a jose key resolver): jose's `JWKSNoMatchingKey` when the set,
   * fetched again if the cooldown allows, has none; `ProviderUnavailable` when no set can be had.
   */
  async key(header: JWSHeaderParameters, token: FlattenedJWSInput): ReturnType<KeySet> {
    const keys = await this.current()
    try {
      return await keys(header, token)
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error
      // Another request's fetch may have brought the key meanwhile.
      const latest = this.keys
      if (latest !== null && latest !== keys) return latest(header, token)
      if (this.pending === null && this.options.now() - this.attemptedAt < this.options.cooldownMs) throw error
      const fresh = await this.refresh()
      return fresh(header, token)
    }
  }

  /** The set: fetched when there is none; fetched again when past `maxAgeMs`, the old one kept if that fails. */
  private async current(): Promise<KeySet> {
    const keys = this.keys
    if (keys === null) return this.refresh()
    if (this.options.now() - this.fetchedAt < this.options.maxAgeMs) return keys
    try {
      return await this.refresh()
    } catch (error) {
      if (error instanceof ProviderUnavailable) return keys
      throw error
    }
  }

  private refresh(): Promise<KeySet> {
    if (this.pending !== null) return this.pending
    const now = this.options.now()
    if (this.failure !== null && now < this.failure.until) return Promise.reject(this.failure.error)
    this.attemptedAt = now
    this.fetchCount++
    this.pending = this.load().then(
      (keys) => {
        this.keys = keys
        this.fetchedAt = this.options.now()
        this.pending = null
        this.failure = null
        this.options.outages.answered()
        return keys
      },
      (error: unknown) => {
        this.pending = null
        const failure = error instanceof ProviderUnavailable ? error : new ProviderUnavailable(`JWKS: ${String(error)}`, null, { cause: error })
        this.failure = { error: failure, until: this.options.now() + this.options.retryAfterMs }
        this.options.outages.failed(failure.message)
        throw failure
      },
    )
    return this.pending
  }

  private async load(): Promise<KeySet> {
    const uri = await this.options.uri()
    const document = await fetchProviderJson(uri, 'JWKS', this.options.limits)
    const keys = document['keys']
    if (!Array.isArray(keys)) throw new ProviderUnavailable('JWKS: the answer has no "keys" array')
    return createLocalJWKSet({ keys: keys.filter(isVerificationKey).slice(0, this.options.maxKeys) })
  }
}
