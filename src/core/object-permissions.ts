import { NotAuthenticated, PermissionDenied } from './errors.js'
import type { Permission } from './permission.js'
import type { RequestContext } from './pipeline.js'
import type { PolicyContext } from './policy-context.js'

/** `permission`'s answer for `object`: allowed when it has no object half (DRF's `BasePermission`). */
export async function objectAnswer(permission: Permission, ctx: PolicyContext, object: unknown): Promise<boolean> {
  return permission.hasObjectPermission === undefined ? true : await permission.hasObjectPermission(ctx, object)
}

/**
 * DRF's `check_object_permissions`: asks each of the route's permissions whether the request
 * may act on `object`, the object the handler loaded (call it after the look-up, before acting
 * on it), and throws the first refusal as DRF's `permission_denied` does: 401 for an anonymous
 * request to a route with authentication schemes, else 403 with the permission's `message`,
 * `code` and `deniedHeaders`. A look-up that finds nothing is the handler's `NotFound` (404), thrown before this.
 * Works with the context of `api.view` handlers and with each adapter's `requestContext()`.
 *
 * @example
 * const article = await findArticle(ctx.params.id)
 * if (article === undefined) throw new NotFound()
 * await checkObjectPermissions(ctx, article)
 */
export async function checkObjectPermissions(ctx: RequestContext, object: unknown): Promise<void> {
  for (const permission of ctx.settings.permissions) {
    if (!(await objectAnswer(permission, ctx, object))) {
      throw ctx.authenticator === null && ctx.settings.authentication.length > 0
        ? new NotAuthenticated()
        : new PermissionDenied(permission.message, permission.code, { headers: permission.deniedHeaders?.(ctx) })
    }
  }
}
