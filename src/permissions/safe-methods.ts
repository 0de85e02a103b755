import type { PolicyContext } from '../core/policy-context.js'

/** The methods DRF's permissions treat as read-only (`SAFE_METHODS`; TRACE is not among them). */
export const SAFE_METHODS: readonly string[] = ['GET', 'HEAD', 'OPTIONS']

/** Whether the request reads only (`request.method in SAFE_METHODS`). */
export function isSafeMethod(ctx: PolicyContext): boolean {
  return SAFE_METHODS.includes(ctx.request.method)
}
