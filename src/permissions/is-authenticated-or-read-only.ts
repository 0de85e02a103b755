import type { PolicyContext } from '../core/policy-context.js'
import type { Permission } from './permission.js'

/** Safe methods for anyone; unsafe methods for authenticated users. */
export const SAFE_METHODS: readonly string[] = ['GET', 'HEAD', 'OPTIONS']

export class IsAuthenticatedOrReadOnly implements Permission {
  hasPermission(ctx: PolicyContext): boolean {
    return SAFE_METHODS.includes(ctx.request.method) || ctx.user.isAuthenticated
  }

  /** Anonymous requests may read. */
  openApiAllowsAnonymous(method: string): boolean {
    return SAFE_METHODS.includes(method)
  }
}
