import type { PolicyContext } from '../core/policy-context.js'
import type { Permission } from './permission.js'
import { isSafeMethod, SAFE_METHODS } from './safe-methods.js'

/**
 * Safe methods only, for anyone (the `ReadOnly` of DRF's permissions guide), to compose:
 * `or(new IsAdminUser(), new ReadOnly())` lets staff write and everyone read.
 */
export class ReadOnly implements Permission {
  hasPermission(ctx: PolicyContext): boolean {
    return isSafeMethod(ctx)
  }

  openApiAllowsAnonymous(method: string): boolean {
    return SAFE_METHODS.includes(method)
  }
}
