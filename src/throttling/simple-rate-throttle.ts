import { thenMaybe, type MaybePromise } from '../core/maybe-promise.js'
import type { PolicyContext } from '../core/policy-context.js'
import { ConfigurationError } from '../core/errors.js'
import { clientIdent } from './client-ident.js'
import type { Rate } from './rate.js'
import type { Throttle, ThrottleDecision } from './throttle.js'
import type { ThrottleHit, ThrottleStore } from './throttle-store.js'

/** Milliseconds since the epoch; injectable so tests drive time. */
export type Clock = () => number

/** Options shared by every `SimpleRateThrottle`. */
export interface SimpleRateThrottleOptions {
  /** Where histories live: `MemoryThrottleStore` in one process, `RedisThrottleStore` across many. */
  readonly store: ThrottleStore
  /** @default Date.now */
  readonly now?: Clock
  /**
   * Trusted proxies in front of the app (see `clientIdent`).
   * @default the view's `settings.numProxies` (itself 0 by default)
   */
  readonly numProxies?: number
  /**
   * IPv6 clients share one budget per network of this prefix length (one subscriber
   * usually holds a whole /64). 128 counts every address apart.
   * @default 64
   */
  readonly ipv6Prefix?: number
}

/**
 * DRF's `wait()`: the seconds until the next request may pass, spreading the
 * time left in the window over the slots that will free up. `null` when no slot
 * will (the history is longer than the limit, after a rate was lowered).
 */
export function throttleWait(hit: ThrottleHit, now: number, rate: Rate): number | null {
  const remainingMs = hit.oldest === null || hit.count === 0 ? rate.windowMs : rate.windowMs - (now - hit.oldest)
  const free = rate.limit - hit.count + 1
  if (free <= 0) return null
  return remainingMs / 1000 / free
}

/**
 * DRF's `SimpleRateThrottle`: a sliding-window log per cache key, kept in a
 * `ThrottleStore`. Subclasses say which key a request counts against
 * (`getCacheKey`) and at which rate (`getRate`); the store does the counting
 * atomically. Refused requests are not recorded, as in DRF.
 *
 * Instances are shared by all requests: per-request state lives in return
 * values, never on `this`.
 *
 * @example
 * class PerTenantThrottle extends SimpleRateThrottle {
 *   private readonly rate = parseRate('1000/hour')
 *   getRate() { return this.rate }
 *   getCacheKey(ctx: PolicyContext) { return `throttle_tenant_${ctx.request.headers.get('x-tenant') ?? 'none'}` }
 * }
 */
export abstract class SimpleRateThrottle implements Throttle {
  protected readonly store: ThrottleStore
  protected readonly now: Clock
  private readonly numProxies: number | undefined
  private readonly ipv6Prefix: number

  constructor(options: SimpleRateThrottleOptions) {
    this.store = options.store
    this.now = options.now ?? Date.now
    this.numProxies = options.numProxies
    this.ipv6Prefix = options.ipv6Prefix ?? 64
    if (!Number.isInteger(this.ipv6Prefix) || this.ipv6Prefix < 0 || this.ipv6Prefix > 128) {
      throw new ConfigurationError('ERR_INVALID_SETTING', 'throttle option "ipv6Prefix" must be an integer from 0 to 128')
    }
  }

  /** The rate for this request; `null` never throttles it (DRF's `None` rate). */
  abstract getRate(ctx: PolicyContext): Rate | null

  /** The history this request counts against; `null` never throttles it. */
  abstract getCacheKey(ctx: PolicyContext): string | null

  /** The client's identity for keys (DRF's `get_ident`), honouring `numProxies`. */
  getIdent(ctx: PolicyContext): string {
    return clientIdent(ctx.request, this.numProxies ?? ctx.settings?.numProxies ?? 0, this.ipv6Prefix)
  }

  /**
   * Synchronous when the store answers synchronously (`MemoryThrottleStore`), else the
   * store's promise and one `then`. A failure (a scope without a rate, the store) is always a
   * rejection, never a throw.
   */
  check(ctx: PolicyContext): MaybePromise<ThrottleDecision> {
    try {
      const rate = this.getRate(ctx)
      if (rate === null) return ALLOWED
      const key = this.getCacheKey(ctx)
      if (key === null) return ALLOWED
      const now = this.now()
      const hit = this.store.hit(key, now, rate.windowMs, rate.limit)
      return thenMaybe(hit, decision, now, rate)
    } catch (error) {
      return Promise.reject(error as Error)
    }
  }
}

const ALLOWED: ThrottleDecision = Object.freeze({ allowed: true })

function decision(hit: ThrottleHit, now: number, rate: Rate): ThrottleDecision {
  if (hit.allowed) return ALLOWED
  return { allowed: false, waitSeconds: throttleWait(hit, now, rate) }
}
