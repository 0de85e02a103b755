import type { PolicyContext } from '../core/policy-context.js'
import type { Permission } from './permission.js'

/** Allows staff users only (`isStaff`; DRF's `IsAdminUser`). */
export class IsAdminUser implements Permission {
  hasPermission(ctx: PolicyContext): boolean {
    return ctx.user.isAuthenticated && ctx.user.isStaff
  }

  openApiAllowsAnonymous(): boolean {
    return false
  }
}
