import type { ErrorDetail } from '../core/errors.js'
import type { PolicyContext } from '../core/policy-context.js'
import type { UserId } from '../core/user.js'
import type { Permission } from './permission.js'
import { isSafeMethod, SAFE_METHODS } from './safe-methods.js'

/** Options of `IsOwnerOrReadOnly`. */
export interface IsOwnerOrReadOnlyOptions<T> {
  /** The id of the user who owns `object` (compared with the requester's `id` by `===`). */
  readonly owner: (object: T) => UserId | null | undefined
  /** The 403's detail when someone else writes. @default DRF's "You do not have permission to perform this action." */
  readonly message?: ErrorDetail
  readonly code?: string
}

/**
 * DRF tutorial's `IsOwnerOrReadOnly`, an object permission: anyone may read an object, only
 * its owner may change it. It lets every request through `hasPermission` (the object is not
 * loaded yet); pair it with `IsAuthenticatedOrReadOnly` so an anonymous write is a 401 before
 * any look-up, and have the handler call `checkObjectPermissions(ctx, object)`.
 *
 * @example
 * permissions: [new IsAuthenticatedOrReadOnly(), new IsOwnerOrReadOnly<Article>({ owner: (a) => a.authorId })]
 */
export class IsOwnerOrReadOnly<T = unknown> implements Permission {
  readonly message?: ErrorDetail
  readonly code?: string
  private readonly owner: (object: T) => UserId | null | undefined

  constructor(options: IsOwnerOrReadOnlyOptions<T>) {
    this.owner = options.owner
    if (options.message !== undefined) this.message = options.message
    if (options.code !== undefined) this.code = options.code
  }

  hasPermission(): boolean {
    return true
  }

  hasObjectPermission(ctx: PolicyContext, object: unknown): boolean {
    if (isSafeMethod(ctx)) return true
    const owner = this.owner(object as T)
    return owner !== null && owner !== undefined && ctx.user.isAuthenticated && owner === ctx.user.id
  }

  /** Anonymous requests may read; no anonymous request owns anything. */
  openApiAllowsAnonymous(method: string): boolean {
    return SAFE_METHODS.includes(method)
  }
}
