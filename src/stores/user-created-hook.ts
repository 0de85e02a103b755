import type { StoredUser } from '../core/user.js'

/**
 * Told of every user a store creates, once the row is committed (Django's `post_save` with
 * `created=True`). What it awaits is awaited before `create` answers. DRF's recipe, a token
 * for every new user, is `(user) => tokens.getOrCreate(user.id)`.
 */
export type UserCreatedHook = (user: StoredUser) => void | Promise<void>

/**
 * Thrown by a user store's `create` (and by the CLI and the admin pages) when the user was
 * created but the `onUserCreated` hook then failed: the row stays (it was already committed),
 * `user` is it, `cause` is what the hook threw.
 */
export class UserCreatedHookError extends Error {
  /** The user that was created. */
  readonly user: StoredUser

  constructor(user: StoredUser, cause: unknown) {
    super(`user ${user.username} was created, but the onUserCreated hook failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
    this.name = 'UserCreatedHookError'
    this.user = user
  }
}

/**
 * Calls `hook` (when there is one) for a user just created.
 * @throws UserCreatedHookError when the hook throws or rejects.
 */
export async function runUserCreatedHook(hook: UserCreatedHook | undefined, user: StoredUser): Promise<void> {
  if (hook === undefined) return
  try {
    await hook(user)
  } catch (error) {
    throw new UserCreatedHookError(user, error)
  }
}
