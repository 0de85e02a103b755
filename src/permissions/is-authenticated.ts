import type { PolicyContext } from '../core/policy-context.js'
import type { Permission } from './permission.js'

/** Allows authenticated requests only. */
export class IsAuthenticated implements Permission {
  hasPermission(ctx: PolicyContext): boolean {
    return ctx.user.isAuthenticated
  }

  openApiAllowsAnonymous(): boolean {
    return false
  }
}
