import type { Permission } from '../core/permission.js'
import { objectAnswer } from '../core/object-permissions.js'
import type { PolicyContext } from '../core/policy-context.js'

export type { Permission } from '../core/permission.js'


/** All must pass (DRF `&`): each asked in turn, for the request and for the object. */
export function and(...permissions: readonly Permission[]): Permission {
  return {
    async hasPermission(ctx: PolicyContext): Promise<boolean> {
      for (const p of permissions) if (!(await p.hasPermission(ctx))) return false
      return true
    },
    async hasObjectPermission(ctx: PolicyContext, object: unknown): Promise<boolean> {
      for (const p of permissions) if (!(await objectAnswer(p, ctx, object))) return false
      return true
    },
    openApiAllowsAnonymous: (method: string): boolean => permissions.every((p) => p.openApiAllowsAnonymous?.(method) === true),
  }
}

/**
 * Any may pass (DRF `|`). For an object, DRF 3.14's rule: one operand must pass both halves,
 * its request check and its object check, so `or(IsAdminUser, IsOwner)` does not let a
 * non-admin act on another's object merely because IsAdminUser has no object check.
 */
export function or(...permissions: readonly Permission[]): Permission {
  return {
    async hasPermission(ctx: PolicyContext): Promise<boolean> {
      for (const p of permissions) if (await p.hasPermission(ctx)) return true
      return false
    },
    async hasObjectPermission(ctx: PolicyContext, object: unknown): Promise<boolean> {
      for (const p of permissions) if ((await p.hasPermission(ctx)) && (await objectAnswer(p, ctx, object))) return true
      return false
    },
    openApiAllowsAnonymous: (method: string): boolean => permissions.some((p) => p.openApiAllowsAnonymous?.(method) === true),
  }
}

/**
 * Negation (DRF `~`), of both halves as DRF 3.14 negates them: the object half of a
 * permission without one is "allowed", so its negation refuses every object.
 */
export function not(permission: Permission): Permission {
  return {
    async hasPermission(ctx: PolicyContext): Promise<boolean> {
      return !(await permission.hasPermission(ctx))
    },
    async hasObjectPermission(ctx: PolicyContext, object: unknown): Promise<boolean> {
      return !(await objectAnswer(permission, ctx, object))
    },
    // A permission that cannot say is assumed to refuse anonymous requests; its negation is not assumed to allow them.
    openApiAllowsAnonymous: (method: string): boolean => permission.openApiAllowsAnonymous?.(method) === false,
  }
}
