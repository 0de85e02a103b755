import { sha256Hex } from '../crypto/sha256.js'
import type { ProviderOutageLog } from './outage-log.js'
import { fetchProviderJson, ProviderUnavailable, type FetchLimits } from './provider-fetch.js'

/** How the resource server authenticates to the introspection endpoint (RFC 6749 §2.3.1). */
export type IntrospectionAuthMethod = 'client_secret_basic' | 'client_secret_post'

export interface IntrospectorOptions {
  /** The endpoint (from discovery: may itself throw `ProviderUnavailable`). */
  readonly endpoint: () => Promise<string>
  readonly clientId: string
  readonly clientSecret: string
  readonly authMethod: IntrospectionAuthMethod
  readonly limits: FetchLimits
  /** Longest a result is kept; an active token's never past its `exp`. */
  readonly cacheMs: number
  /** Active answers kept at most; the oldest go first. */
  readonly maxEntries: number
  /** Inactive answers kept at most, apart from the active ones (so that they never push one out); the oldest go first. */
  readonly maxInactiveEntries: number
  /** Introspection requests in flight at most (one per distinct token); a question past it gets `IntrospectionBusy`. */
  readonly maxInFlight: number
  readonly now: () => number
  readonly outages: ProviderOutageLog
}

/** A cached answer: the active token's claims, or `null` for an inactive one. */
interface Entry {
  readonly claims: Readonly<Record<string, unknown>> | null
  readonly until: number
}

/**
 * The introspection requests in flight are at their cap: the request is refused at once (503
 * with `Retry-After`) instead of queueing another request to the authorization server.
 */
export class IntrospectionBusy extends Error {
  override readonly name = 'IntrospectionBusy'
}

/** `application/x-www-form-urlencoded` of one value, as RFC 6749 §2.3.1 wants the client id and secret before Basic. */
function formEncode(value: string): string {
  return new URLSearchParams([['', value]]).toString().slice(1)
}

/** A first-in first-out cache of at most `max` entries (a Map keeps insertion order: the first key is the oldest). */
function put(cache: Map<string, Entry>, max: number, key: string, entry: Entry): void {
  if (max < 1) return
  cache.delete(key)
  while (cache.size >= max) {
    const oldest = cache.keys().next()
    if (oldest.done === true) break
    cache.delete(oldest.value)
  }
  cache.set(key, entry)
}

/**
 * RFC 7662 token introspection: asks the authorization server about an opaque token, as the
 * configured client. Answers are kept for `cacheMs` at most, an active token's never past its
 * `exp` (so a revoked token stops working within `cacheMs`), keyed by the token's SHA-256 so
 * that the cache holds no usable token; concurrent questions about one token are one request.
 * Inactive answers have a cache of their own, so made-up tokens (any client can send them)
 * never push out an active one; at most `maxInFlight` distinct tokens are asked about at once.
 */
export class Introspector {
  private readonly cache = new Map<string, Entry>()
  private readonly inactive = new Map<string, Entry>()
  private readonly pending = new Map<string, Promise<Readonly<Record<string, unknown>> | null>>()
  private requestCount = 0

  constructor(private readonly options: IntrospectorOptions) {}

  get requests(): number {
    return this.requestCount
  }

  /**
   * The active token's claims (the introspection answer), `null` when inactive;
   * `ProviderUnavailable` when it cannot be asked, `IntrospectionBusy` when `maxInFlight`
   * other tokens are being asked about.
   */
  introspect(token: string): Promise<Readonly<Record<string, unknown>> | null> {
    const key = sha256Hex(token)
    const now = this.options.now()
    for (const cache of [this.cache, this.inactive]) {
      const cached = cache.get(key)
      if (cached === undefined) continue
      if (now < cached.until) return Promise.resolve(cached.claims)
      cache.delete(key)
    }
    const inFlight = this.pending.get(key)
    if (inFlight !== undefined) return inFlight
    if (this.pending.size >= this.options.maxInFlight) return Promise.reject(new IntrospectionBusy(`introspection: ${this.options.maxInFlight} requests in flight`))
    const asked = this.ask(token).then(
      (claims) => {
        this.pending.delete(key)
        this.remember(key, claims)
        this.options.outages.answered()
        return claims
      },
      (error: unknown) => {
        this.pending.delete(key)
        if (error instanceof ProviderUnavailable) this.options.outages.failed(error.message)
        throw error
      },
    )
    this.pending.set(key, asked)
    return asked
  }

  private async ask(token: string): Promise<Readonly<Record<string, unknown>> | null> {
    const { clientId, clientSecret, authMethod, limits } = this.options
    const endpoint = await this.options.endpoint()
    const form = new URLSearchParams({ token, token_type_hint: 'access_token' })
    const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' }
    if (authMethod === 'client_secret_basic') headers['Authorization'] = `Basic ${btoa(`${formEncode(clientId)}:${formEncode(clientSecret)}`)}`
    else {
      form.set('client_id', clientId)
      form.set('client_secret', clientSecret)
    }
    this.requestCount++
    const answer = await fetchProviderJson(endpoint, 'introspection', limits, { method: 'POST', headers, body: form.toString() })
    return answer['active'] === true ? Object.freeze(answer) : null
  }

  private remember(key: string, claims: Readonly<Record<string, unknown>> | null): void {
    const now = this.options.now()
    let until = now + this.options.cacheMs
    const exp = claims?.['exp']
    if (typeof exp === 'number' && Number.isFinite(exp)) until = Math.min(until, exp * 1000)
    if (until <= now) return
    if (claims === null) put(this.inactive, this.options.maxInactiveEntries, key, { claims, until })
    else put(this.cache, this.options.maxEntries, key, { claims, until })
  }
}
