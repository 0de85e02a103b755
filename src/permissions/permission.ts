import type { Permission } from '../core/permission.js'
import type { PolicyContext } from '../core/policy-context.js'

export type { Permission } from '../core/permission.js'

/** All must pass (DRF `&`). */
export function and(...permissions: readonly Permission[]): Permission {
  return {
    async hasPermission(ctx: PolicyContext): Promise<boolean> {
      for (const p of permissions) if (!(await p.hasPermission(ctx))) return false
      return true
    },
    openApiAllowsAnonymous: (method: string): boolean => permissions.every((p) => p.openApiAllowsAnonymous?.(method) === true),
  }
}

/** Any may pass (DRF `|`). */
export function or(...permissions: readonly Permission[]): Permission {
  return {
    async hasPermission(ctx: PolicyContext): Promise<boolean> {
      for (const p of permissions) if (await p.hasPermission(ctx)) return true
      return false
    },
    openApiAllowsAnonymous: (method: string): boolean => permissions.some((p) => p.openApiAllowsAnonymous?.(method) === true),
  }
}

/** Negation (DRF `~`). */
export function not(permission: Permission): Permission {
  return {
    async hasPermission(ctx: PolicyContext): Promise<boolean> {
      return !(await permission.hasPermission(ctx))
    },
    // A permission that cannot say is assumed to refuse anonymous requests; its negation is not assumed to allow them.
    openApiAllowsAnonymous: (method: string): boolean => permission.openApiAllowsAnonymous?.(method) === false,
  }
}
