import type { PolicyContext } from '../core/policy-context.js'

/** A throttle's answer for one request. `waitSeconds` feeds `Retry-After`. */
export type ThrottleDecision =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly waitSeconds: number | null }

/** Consulted after permissions pass; every throttle runs on every request (DRF). */
export interface Throttle {
  check(ctx: PolicyContext): Promise<ThrottleDecision>
}
