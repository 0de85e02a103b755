import type { MaybePromise } from './maybe-promise.js'
import type { PolicyContext, ViewInfo } from './policy-context.js'

/** A throttle's answer for one request. `waitSeconds` feeds `Retry-After`. */
export type ThrottleDecision =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly waitSeconds: number | null }

/** Consulted after permissions pass; every throttle runs on every request (DRF). */
export interface Throttle {
  check(ctx: PolicyContext): MaybePromise<ThrottleDecision>
  /**
   * Called once when a route or view using this throttle is declared: throw a
   * `ConfigurationError` for a setting the route lacks (a scope with no rate), so the
   * mistake stops start-up instead of failing every request.
   */
  validateRoute?(view: ViewInfo): void
}
