import type { PolicyContext, ViewInfo } from '../core/policy-context.js'
import { ConfigurationError } from '../core/errors.js'
import { parseRate, type Rate } from './rate.js'
import { SimpleRateThrottle, type SimpleRateThrottleOptions } from './simple-rate-throttle.js'

/** Options for `ScopedRateThrottle`. */
export interface ScopedRateThrottleOptions extends SimpleRateThrottleOptions {
  /** Rate per scope (DRF's `DEFAULT_THROTTLE_RATES`), e.g. `{ uploads: '20/day' }`; `null` never throttles. */
  readonly rates: Readonly<Record<string, string | null>>
}

/**
 * DRF's `ScopedRateThrottle`: limits views by their `throttleScope`, per user
 * id when authenticated, else per client address (`throttle_uploads_42`).
 * Views without a scope are never throttled by it; views sharing a scope share
 * a budget. Every rate is parsed at construction, so a bad one fails at start-up.
 *
 * @example
 * const scoped = new ScopedRateThrottle({ store, rates: { uploads: '20/day', contacts: '5/min' } })
 * api.view({ throttleScope: 'uploads', throttles: [scoped], handlers: { POST: upload } })
 */
export class ScopedRateThrottle extends SimpleRateThrottle {
  private readonly rates: ReadonlyMap<string, Rate | null>

  constructor(options: ScopedRateThrottleOptions) {
    super(options)
    const rates = new Map<string, Rate | null>()
    for (const [scope, rate] of Object.entries(options.rates)) rates.set(scope, rate === null ? null : parseRate(rate))
    this.rates = rates
  }

  /**
   * A route whose scope has no entry in `rates` is a setup mistake (DRF's
   * `ImproperlyConfigured`): caught when the route is declared, not on its first request.
   */
  validateRoute(view: ViewInfo): void {
    const scope = view.throttleScope
    if (scope !== null && !this.rates.has(scope)) {
      throw new ConfigurationError('ERR_NO_THROTTLE_RATE', `No default throttle rate set for '${scope}' scope (route "${view.name}")`)
    }
  }

  /**
   * The view scope's rate. A scope missing from `rates` throws (a route declared
   * without going through `validateRoute`): the request answers 500 and the error is
   * logged rather than silently unthrottled.
   */
  getRate(ctx: PolicyContext): Rate | null {
    const scope = ctx.view.throttleScope
    if (scope === null) return null
    const rate = this.rates.get(scope)
    if (rate === undefined) {
      throw new ConfigurationError('ERR_NO_THROTTLE_RATE', `No default throttle rate set for '${scope}' scope`)
    }
    return rate
  }

  getCacheKey(ctx: PolicyContext): string | null {
    const scope = ctx.view.throttleScope
    if (scope === null) return null
    const ident = ctx.user.isAuthenticated && ctx.user.id !== null ? String(ctx.user.id) : this.getIdent(ctx)
    return `throttle_${scope}_${ident}`
  }
}
