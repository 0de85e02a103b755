import type { StoredUser, UserId } from '../core/user.js'
import type { PasswordValidator } from '../passwords/password-validation.js'

/** Fields for a new user. */
export interface NewUser {
  readonly username: string
  /** Plain password; hashed by the store. `null` makes an account that cannot log in by password. */
  readonly password: string | null
  readonly isActive?: boolean
  readonly isStaff?: boolean
  /** Django's `is_superuser` (see `User.isSuperuser`). @default false */
  readonly isSuperuser?: boolean
}

/** What `UserStore.list` is asked for. */
export interface UserListQuery {
  /** Only users whose username contains this, case-insensitively (Django admin's `icontains`). @default all */
  readonly search?: string
  /** Users skipped, in username order. */
  readonly offset: number
  /** Users answered at most. */
  readonly limit: number
}

/** One page of `UserStore.list`. */
export interface UserListPage {
  /** The users of the page, by username. */
  readonly users: readonly StoredUser[]
  /** How many users match the search, all pages together. */
  readonly count: number
}

/** Where users live. The Kysely store is the built-in; a user's own store implements the same. */
export interface UserStore {
  findById(id: UserId): Promise<StoredUser | null>
  /** Exact, case-sensitive match (Django's `get_by_natural_key`). */
  findByUsername(username: string): Promise<StoredUser | null>
  /**
   * Django's `authenticate(username, password)`: the active user with these credentials, or
   * `null` (unknown user, wrong password, inactive user alike). Takes the same hashing time
   * whether or not the user exists.
   */
  authenticate(username: string, password: string): Promise<StoredUser | null>
  /** Checks a password in constant time against the stored hash (scrypt, or Django's pbkdf2_sha256). */
  checkPassword(user: StoredUser, password: string): Promise<boolean>
  /**
   * Creates a user, its name normalised with NFKC first (`normalizeUsername`, Django's
   * `normalize_username`: `ａｄｍｉｎ` is `admin`), so a look-alike of an existing name is a
   * duplicate; `runUserStoreSuite` checks it. Throws on a duplicate username (the store's
   * unique constraint). A store with an `onUserCreated` hook (`UserCreatedHook`) calls it once
   * the row is committed.
   */
  create(user: NewUser): Promise<StoredUser>
  /**
   * Optional: sets a user's password (`null`: an unusable one, as Django's
   * `set_unusable_password`). @returns false when there is no such user.
   */
  setPassword?(userId: UserId, password: string | null): Promise<boolean>
  /**
   * Optional: the password rules of this store's users (Django's `AUTH_PASSWORD_VALIDATORS`),
   * which the admin's forms and your own views run with `validatePassword` before `create` or
   * `setPassword`. Those two never validate, as Django's `set_password` does not.
   * @default the admin uses `defaultPasswordValidators()`
   */
  readonly passwordValidators?: readonly PasswordValidator[]
  /**
   * Optional: a value that changes whenever the user's password changes (Django's
   * `get_session_auth_hash`), or `null` for no such user. When present, the login view keeps
   * it in the new session and `SessionAuthentication` ends sessions it no longer matches:
   * a password change logs the user out everywhere (`updateSessionAuthHash` keeps the
   * session that made the change). `KyselyUserStore` has it.
   */
  sessionAuthHash?(userId: UserId): Promise<string | null>
  /**
   * Optional: the user's encoded password hash as stored (Django's `user.password`:
   * `pbkdf2_sha256$…`, `scrypt$…`, `!…` for an unusable one), or `null` for no such user.
   * The JWT setting `checkRevokeToken` digests it into its tokens (simplejwt 5.3's
   * `CHECK_REVOKE_TOKEN`) and needs it; never put it in a response or a log.
   * `KyselyUserStore` has it.
   */
  storedPasswordHash?(userId: UserId): Promise<string | null>
  /**
   * Optional: activates or deactivates a user. An inactive user keeps their rows but no
   * longer authenticates by any scheme. @returns false when there is no such user.
   */
  setActive?(userId: UserId, isActive: boolean): Promise<boolean>
  /**
   * Optional: grants or revokes staff status (`IsAdminUser`). Cached token
   * authentications hold the user's flags, so the change is published like the others.
   * @returns false when there is no such user.
   */
  setStaff?(userId: UserId, isStaff: boolean): Promise<boolean>
  /**
   * Optional: grants or revokes superuser status (Django's `is_superuser`), published like
   * `setStaff`. @returns false when there is no such user.
   */
  setSuperuser?(userId: UserId, isSuperuser: boolean): Promise<boolean>
  /**
   * Optional: records a successful login at `at` (Django's `update_last_login`, the
   * `last_login` column). simplejwt's obtain view calls it with `UPDATE_LAST_LOGIN`
   * (`updateLastLogin`); nothing is published, as no cached authentication depends on it.
   * @returns false when there is no such user (or the store keeps no such column).
   */
  updateLastLogin?(userId: UserId, at: Date): Promise<boolean>
  /**
   * Optional: the one spelling of `username` that `authenticate` and `findByUsername`
   * resolve it by (django-axes' `AXES_USERNAME_CALLABLE`). A store whose lookup ignores case
   * (a `citext` or `COLLATE NOCASE` column) answers `username.toLowerCase()`, so that
   * `LoginFailureThrottle` counts `Alice`, `ALICE` and `alice` as one account, not three
   * budgets. Absent: names are counted as sent (right for an exact, case-sensitive lookup).
   */
  canonicalUsername?(username: string): string
  /** Optional: a page of users by username, optionally searched (what the admin pages list). */
  list?(query: UserListQuery): Promise<UserListPage>
}
