import type { ErrorDetail, ErrorHeader } from './errors.js'
import type { PolicyContext } from './policy-context.js'

/**
 * Says yes or no for a request, and optionally for the object a detail handler loaded (DRF's
 * `BasePermission`). A "no" becomes 401/403 chosen by the pipeline (DRF's
 * `permission_denied`), not by the permission.
 */
export interface Permission {
  hasPermission(ctx: PolicyContext): boolean | Promise<boolean>
  /**
   * Whether the request may act on `object`, asked by `checkObjectPermissions(ctx, object)`
   * once a handler has loaded it (DRF's `has_object_permission`), after `hasPermission`
   * passed. Absent: allowed, as DRF's `BasePermission` answers.
   */
  hasObjectPermission?(ctx: PolicyContext, object: unknown): boolean | Promise<boolean>
  /** Message for the 403 when an authenticated request is refused; DRF's default when absent. */
  readonly message?: ErrorDetail
  readonly code?: string
  /**
   * Headers the 403 carries when this permission refuses an authenticated request (RFC 6750's
   * `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`). Absent: none.
   */
  deniedHeaders?(ctx: PolicyContext): readonly ErrorHeader[]
  /**
   * Whether an anonymous request with `method` can pass, for OpenAPI documents (an operation
   * anonymous requests may call lists the empty security requirement `{}`). Absent: assumed not.
   */
  openApiAllowsAnonymous?(method: string): boolean
  /**
   * OAuth 2.0 scopes a request with `method` must have been granted, for OpenAPI documents:
   * listed in the operation's security requirement of each `oauth2`/`openIdConnect` scheme.
   * Absent: none.
   */
  openApiScopes?(method: string): readonly string[]
}
