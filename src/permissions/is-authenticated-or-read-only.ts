import type { PolicyContext } from '../core/policy-context.js'
import type { Permission } from './permission.js'
import { isSafeMethod, SAFE_METHODS } from './safe-methods.js'

export { SAFE_METHODS } from './safe-methods.js'

/** Safe methods for anyone; unsafe methods for authenticated users. */
export class IsAuthenticatedOrReadOnly implements Permission {
  hasPermission(ctx: PolicyContext): boolean {
    return isSafeMethod(ctx) || ctx.user.isAuthenticated
  }

  /** Anonymous requests may read. */
  openApiAllowsAnonymous(method: string): boolean {
    return SAFE_METHODS.includes(method)
  }
}
