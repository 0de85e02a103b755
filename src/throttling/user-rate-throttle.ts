import type { PolicyContext } from '../core/policy-context.js'
import type { RateThrottleOptions } from './anon-rate-throttle.js'
import { parseRate, type Rate } from './rate.js'
import { SimpleRateThrottle } from './simple-rate-throttle.js'

/**
 * DRF's `UserRateThrottle`: limits each authenticated user by id
 * (`throttle_user_42`), and anonymous requests by client address
 * (`throttle_user_10.0.0.1`).
 *
 * @example
 * // DRF's burst + sustained pattern: two scopes, two histories.
 * throttles: [
 *   new UserRateThrottle({ store, rate: '60/min', scope: 'burst' }),
 *   new UserRateThrottle({ store, rate: '1000/day', scope: 'sustained' }),
 * ]
 */
export class UserRateThrottle extends SimpleRateThrottle {
  readonly scope: string
  private readonly rate: Rate | null

  constructor(options: RateThrottleOptions) {
    super(options)
    this.rate = options.rate === null ? null : parseRate(options.rate)
    this.scope = options.scope ?? 'user'
  }

  getRate(): Rate | null {
    return this.rate
  }

  getCacheKey(ctx: PolicyContext): string | null {
    const ident = ctx.user.isAuthenticated && ctx.user.id !== null ? String(ctx.user.id) : this.getIdent(ctx)
    return `throttle_${this.scope}_${ident}`
  }
}
