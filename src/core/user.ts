/**
 * Identifier of a stored user: an integer for gatehouse's own table, or whatever your own
 * users table keys by (a UUID string, say). Compare ids with `===`; never parse them.
 */
export type UserId = number | string

/** The identity policies read. Stored users and the anonymous user both satisfy it. */
export interface User {
  readonly id: UserId | null
  readonly username: string | null
  readonly isActive: boolean
  readonly isStaff: boolean
  /**
   * Django's `is_superuser`: in gatehouse it grants one thing, acting on staff and superuser
   * accounts (and revealing other users' token keys) in the admin pages. `IsAdminUser` reads
   * `isStaff` only, as DRF's does. Absent: `false`.
   */
  readonly isSuperuser?: boolean
  readonly isAuthenticated: boolean
}

/** A user kept in a `UserStore`. */
export interface StoredUser extends User {
  readonly id: UserId
  readonly username: string
  readonly isAuthenticated: true
}

const ANONYMOUS: User = Object.freeze({
  id: null,
  username: null,
  isActive: false,
  isStaff: false,
  isAuthenticated: false,
})

/** DRF's `AnonymousUser`: the default `unauthenticatedUser`. */
export function anonymousUser(): User {
  return ANONYMOUS
}
