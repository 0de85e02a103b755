import type { PolicyContext } from '../core/policy-context.js'
import { parseRate, type Rate } from './rate.js'
import { SimpleRateThrottle, type SimpleRateThrottleOptions } from './simple-rate-throttle.js'

/** Options for `AnonRateThrottle` and `UserRateThrottle`. */
export interface RateThrottleOptions extends SimpleRateThrottleOptions {
  /** A rate string such as `'100/day'` (see `parseRate`); `null` never throttles. */
  readonly rate: string | null
  /** The key's scope: give two throttles of one class different scopes so their histories stay apart. */
  readonly scope?: string
}

/**
 * DRF's `AnonRateThrottle`: limits unauthenticated requests per client address
 * (key `throttle_anon_<ip>`). Authenticated requests are never throttled by it.
 *
 * @example
 * new AnonRateThrottle({ store: new MemoryThrottleStore(), rate: '100/day' })
 */
export class AnonRateThrottle extends SimpleRateThrottle {
  readonly scope: string
  private readonly rate: Rate | null

  constructor(options: RateThrottleOptions) {
    super(options)
    this.rate = options.rate === null ? null : parseRate(options.rate)
    this.scope = options.scope ?? 'anon'
  }

  getRate(): Rate | null {
    return this.rate
  }

  getCacheKey(ctx: PolicyContext): string | null {
    if (ctx.user.isAuthenticated) return null
    return `throttle_${this.scope}_${this.getIdent(ctx)}`
  }
}
