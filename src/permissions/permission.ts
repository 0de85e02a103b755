import type { ErrorDetail } from '../core/errors.js'
import type { PolicyContext } from '../core/policy-context.js'

/**
 * Says yes or no for a request. A "no" becomes 401/403 chosen by the pipeline
 * (DRF's `permission_denied`), not by the permission.
 */
export interface Permission {
  hasPermission(ctx: PolicyContext): boolean | Promise<boolean>
  /** Message for the 403 when an authenticated request is refused; DRF's default when absent. */
  readonly message?: ErrorDetail
  readonly code?: string
}

/** All must pass (DRF `&`). */
export function and(...permissions: readonly Permission[]): Permission {
  return {
    async hasPermission(ctx: PolicyContext): Promise<boolean> {
      for (const p of permissions) if (!(await p.hasPermission(ctx))) return false
      return true
    },
  }
}

/** Any may pass (DRF `|`). */
export function or(...permissions: readonly Permission[]): Permission {
  return {
    async hasPermission(ctx: PolicyContext): Promise<boolean> {
      for (const p of permissions) if (await p.hasPermission(ctx)) return true
      return false
    },
  }
}

/** Negation (DRF `~`). */
export function not(permission: Permission): Permission {
  return {
    async hasPermission(ctx: PolicyContext): Promise<boolean> {
      return !(await permission.hasPermission(ctx))
    },
  }
}
