import { sql, type AliasedRawBuilder, type Kysely } from 'kysely'
import { ConfigurationError } from '../core/errors.js'
import { normalizeUsername } from '../core/username.js'
import type { StoredUser, UserId } from '../core/user.js'
import { defaultPasswordBudget, type PasswordBudget } from '../crypto/password-budget.js'
import { paddedVerifier, scryptHasher, type PasswordHasher } from '../crypto/password-hasher.js'
import { hasNativeScrypt, pbkdf2Hasher } from '../crypto/pbkdf2-hasher.js'
import { DEFAULT_SCRYPT, verifyPasswordUniform, type ScryptParams } from '../crypto/passwords.js'
import { sessionAuthHashOf } from '../crypto/session-auth-hash.js'
import { randomUUID } from '../crypto/random.js'
import type { PasswordValidator } from '../passwords/password-validation.js'
import type { InvalidationBus } from '../stores/invalidation-bus.js'
import type { NewUser, UserListPage, UserListQuery, UserStore } from '../stores/user-store.js'
import { runUserCreatedHook, type UserCreatedHook } from '../stores/user-created-hook.js'
import type { AuthDatabase, UsersDatabase } from './schema.js'
import { checkUserTable, DEFAULT_USER_TABLE, rowToUser, userSelection, type UserColumns, type UserRow, type UserTable, type UserTableOf } from './user-table.js'

/**
 * Options for `KyselyUserStore`. `userTable` may be left out only when `DB` has gatehouse's
 * own `gatehouse_users` (`RequiredUserTable`).
 */
export interface KyselyUserStoreOptions<DB = AuthDatabase> {
  /** Your Kysely instance, typed with your whole database. */
  readonly db: Kysely<DB>
  /**
   * scrypt cost for new hashes, for the rehash of weaker ones at login, and for the dummy
   * check that pads a wrong password for an unknown user. Existing hashes keep theirs until
   * their user logs in. Lower it only in tests and demos (a cheaper cost makes stolen hashes
   * cheaper to crack): the reference API's `GATEHOUSE_SCRYPT_N`, for instance.
   * @default DEFAULT_SCRYPT (OWASP: N=2^17, r=8, p=1)
   */
  readonly scrypt?: ScryptParams
  /**
   * Hashes and checks passwords instead of the built-in scrypt (`scrypt` is then unused): a
   * native implementation where the portable scrypt is too slow or too hungry (an edge
   * runtime's limits), or another algorithm. A wrong password is padded to the cost of one
   * `verify` against a dummy hash that `hash` makes once.
   * @default scryptHasher(scrypt) where node:crypto has scrypt or `scrypt` is set, else pbkdf2Hasher() (`defaultPasswordHasher`)
   */
  readonly passwordHasher?: PasswordHasher
  /**
   * The memory budget every password check and hash of this store runs under: at most
   * `concurrent` at once (2 by default, 128 MiB each at the default scrypt cost: 256 MiB),
   * `queued` more waiting, and beyond that `503` with `Retry-After`. A rehash after a login
   * waits for an idle turn (it is skipped, until the next login, when none is free).
   * @default defaultPasswordBudget() (one per process, shared by every store that takes the default)
   */
  readonly passwordBudget?: PasswordBudget | undefined
  /**
   * Told after `setPassword`, `setActive` and `setStaff` change a user, so token caches drop what they
   * hold about them (the bus your `MemoryTokenCache` listens to). @default none
   */
  readonly invalidation?: InvalidationBus | undefined
  /**
   * Called with every user `create` makes, after the row is committed (DRF's "a token for
   * every new user" is `onUserCreated: (user) => tokens.getOrCreate(user.id)`). When `db` is
   * a transaction, it runs after the insert and the commit is yours. If it throws, `create`
   * rejects with a `UserCreatedHookError` carrying the user, whose row stays. @default none
   */
  readonly onUserCreated?: UserCreatedHook | undefined
  /**
   * The layout of your users table (Django's `AUTH_USER_MODEL`): one of `DB`'s tables, its
   * columns, its id type. Required when `DB` has no `gatehouse_users`.
   * @default DEFAULT_USER_TABLE (gatehouse's own `gatehouse_users`)
   */
  readonly userTable?: UserTableOf<DB>
  /**
   * The one spelling your username column finds a name by, when its lookup is not exact: for
   * a `citext` (PostgreSQL) or `COLLATE NOCASE` (SQLite) column,
   * `(name) => name.toLowerCase()`. `LoginFailureThrottle` counts failures under it, so case
   * variants of one account share its budget instead of each having their own.
   * @default the name as sent (gatehouse's own table matches exactly)
   */
  readonly canonicalUsername?: ((username: string) => string) | undefined
  /**
   * The password rules of these users, kept as `passwordValidators` for the admin's forms and
   * your own views (`validatePassword(password, user, users.passwordValidators)`); `create` and
   * `setPassword` do not run them. `[]` turns validation off in the admin.
   * @default none here (the admin then uses `defaultPasswordValidators()`, Django's four)
   */
  readonly passwordValidators?: readonly PasswordValidator[] | undefined
}

/** What `KyselyUserStore`'s options must add for database `DB`: `userTable`, when `DB` has no `gatehouse_users`. */
export type RequiredUserTable<DB> = DB extends UsersDatabase ? unknown : { readonly userTable: UserTableOf<DB> }

/** The store's view of a database: any table, any columns (the mapping names them at run time). */
type LooseDatabase = Record<string, Record<string, unknown>>

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * PostgreSQL refuses text containing NUL ("invalid byte sequence"), and no stored
 * name can contain one, so such input is "not found" rather than a driver error (a 500).
 */
function storable(text: string): boolean {
  return !text.includes('\0')
}

/**
 * Users in SQL, passwords hashed with scrypt: gatehouse's `gatehouse_users` table, or your
 * own users table described by `userTable` (extra columns are ignored).
 *
 * @example
 * const users = new KyselyUserStore({ db })
 * const accounts = new KyselyUserStore({
 *   db,
 *   userTable: {
 *     table: 'accounts',
 *     columns: { id: 'account_id', username: 'email', password: 'pw_hash', isActive: 'enabled' },
 *     idType: 'uuid',
 *   },
 * })
 */
// DB only types the constructor's argument: stores of different databases are interchangeable.
export class KyselyUserStore<DB = AuthDatabase> implements UserStore {
  /** The layout of this store's users table, for the token stores' `joinUsers` and `authMigrations`' `users`. */
  readonly userTable: UserTable
  private readonly db: Kysely<LooseDatabase>
  private readonly table: string
  private readonly columns: UserColumns
  private readonly hasher: PasswordHasher
  /** The hasher's `verify`, padded so that a wrong password costs the same for every account. */
  private readonly verifyUniform: (password: string, encoded: string | null) => Promise<boolean>
  private readonly budget: PasswordBudget
  private readonly invalidation: InvalidationBus | undefined
  private readonly onUserCreated: UserCreatedHook | undefined
  private readonly canonical: ((username: string) => string) | undefined
  /** The `passwordValidators` option (`UserStore.passwordValidators`). */
  readonly passwordValidators?: readonly PasswordValidator[]

  /** @throws ConfigurationError when `userTable` lacks a table, `id`, `username` or `password`, or its `idType` is unknown. */
  constructor(options: KyselyUserStoreOptions<DB> & RequiredUserTable<DB>) {
    // Kysely<DB> is invariant in DB, and the mapped table is only known at run time.
    this.db = options.db as unknown as Kysely<LooseDatabase>
    this.userTable = checkUserTable(options.userTable ?? DEFAULT_USER_TABLE, 'KyselyUserStore option "userTable"')
    this.table = this.userTable.table
    this.columns = this.userTable.columns
    // Where node:crypto has no scrypt (an edge runtime), Django's PBKDF2 unless scrypt was asked for.
    const hasher = options.passwordHasher ?? (options.scrypt === undefined && !hasNativeScrypt() ? pbkdf2Hasher() : undefined)
    if (hasher === undefined) {
      const scrypt = options.scrypt ?? DEFAULT_SCRYPT
      this.hasher = scryptHasher(scrypt)
      this.verifyUniform = (password, encoded) => verifyPasswordUniform(password, encoded, scrypt)
    } else {
      this.hasher = hasher
      this.verifyUniform = paddedVerifier(hasher)
    }
    this.budget = options.passwordBudget ?? defaultPasswordBudget()
    this.invalidation = options.invalidation
    this.onUserCreated = options.onUserCreated
    this.canonical = options.canonicalUsername
    if (options.passwordValidators !== undefined) this.passwordValidators = Object.freeze([...options.passwordValidators])
  }

  /** The spelling lookups resolve `username` by: the `canonicalUsername` option's, else `username`. */
  canonicalUsername(username: string): string {
    return this.canonical === undefined ? username : this.canonical(username)
  }

  /** True when `id` can be an id of this table; anything else would be a driver error on PostgreSQL. */
  private validId(id: UserId): boolean {
    return this.userTable.idType === 'uuid' ? typeof id === 'string' && UUID.test(id) : Number.isSafeInteger(id)
  }

  private userSelection(): AliasedRawBuilder<unknown, string>[] {
    return userSelection(this.userTable)
  }

  private toUser(row: UserRow): StoredUser {
    return rowToUser(this.userTable, row)
  }

  private async findBy(column: string, value: UserId): Promise<StoredUser | null> {
    const row: UserRow | undefined = await this.db
      .selectFrom(this.table)
      .select(this.userSelection())
      .where(sql.ref(column), '=', value)
      .executeTakeFirst()
    return row === undefined ? null : this.toUser(row)
  }

  async findById(id: UserId): Promise<StoredUser | null> {
    if (!this.validId(id)) return null
    return this.findBy(this.columns.id, id)
  }

  async findByUsername(username: string): Promise<StoredUser | null> {
    if (!storable(username)) return null
    return this.findBy(this.columns.username, username)
  }

  /**
   * A page of users in username order; `search` keeps those whose username contains it,
   * case-insensitively (ASCII letters only on SQLite, whose `lower` knows no other; `%`, `_` and `\` in it are literal).
   */
  async list(query: UserListQuery): Promise<UserListPage> {
    const search = query.search ?? ''
    const limit = Math.max(0, Math.trunc(query.limit))
    const offset = Math.max(0, Math.trunc(query.offset))
    if (!storable(search)) return { users: [], count: 0 }
    const pattern = `%${search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`
    const username = sql.ref<string>(this.columns.username)
    const matching = sql<boolean>`lower(${username}) like ${pattern} escape '\\'`
    const base = this.db.selectFrom(this.table)
    const filtered = search === '' ? base : base.where(matching)
    const counted = await filtered.select(sql<number | string | bigint>`count(*)`.as('n')).executeTakeFirst()
    const rows: UserRow[] = await filtered.select(this.userSelection()).orderBy(username).orderBy(sql.ref(this.columns.id)).limit(limit).offset(offset).execute()
    return { users: rows.map((row) => this.toUser(row)), count: Number(counted?.n ?? 0) }
  }

  private async storedHash(userId: UserId): Promise<string | undefined> {
    if (!this.validId(userId)) return undefined
    const row = await this.db
      .selectFrom(this.table)
      .select(sql.ref<unknown>(this.columns.password).as('password'))
      .where(sql.ref(this.columns.id), '=', userId)
      .executeTakeFirst()
    return row === undefined || typeof row.password !== 'string' ? undefined : row.password
  }

  /** @throws ServiceUnavailable (503, `Retry-After`) when the `passwordBudget` is full. */
  async checkPassword(user: StoredUser, password: string): Promise<boolean> {
    const stored = await this.storedHash(user.id)
    // Same hashing work whatever the account, so the answer's timing says nothing about it.
    const ok = await this.budget.run(() => this.verifyUniform(password, stored ?? null))
    if (ok && stored !== undefined) await this.upgradeHash(user.id, stored, password)
    return ok
  }

  /**
   * The user's session auth hash (Django's `get_session_auth_hash`): an HMAC of the stored
   * password hash, so every `setPassword` changes it and ends the user's other sessions.
   * `null` when there is no such user.
   */
  async sessionAuthHash(userId: UserId): Promise<string | null> {
    const stored = await this.storedHash(userId)
    return stored === undefined ? null : sessionAuthHashOf(stored)
  }

  /** The encoded password hash as stored (what `checkRevokeToken` digests), or `null` for no such user. */
  async storedPasswordHash(userId: UserId): Promise<string | null> {
    return (await this.storedHash(userId)) ?? null
  }

  private hashUnderBudget(password: string): Promise<string> {
    const hasher = this.hasher
    return this.budget.run(() => hasher.hash(password))
  }

  /** Replaces a hash that verified but is weaker than this store's (Django's `must_update`). */
  private async upgradeHash(userId: UserId, encoded: string, password: string): Promise<void> {
    if (!this.hasher.needsRehash(encoded)) return
    // Optional work: under load it waits for a later login rather than for a turn.
    const hash = await this.budget.runIfIdle(() => this.hasher.hash(password))
    if (hash === undefined) return
    // Only if unchanged meanwhile: a concurrent password change wins.
    await this.db
      .updateTable(this.table)
      .set({ [this.columns.password]: hash })
      .where(sql.ref(this.columns.id), '=', userId)
      .where(sql.ref(this.columns.password), '=', encoded)
      .execute()
  }

  /**
   * Finds a user by name and checks the password, spending the same hashing time
   * whether or not the user exists. Inactive users never authenticate (Django's ModelBackend).
   * @throws ServiceUnavailable (503, `Retry-After`) when the `passwordBudget` is full.
   */
  async authenticate(username: string, password: string): Promise<StoredUser | null> {
    const row: UserRow | undefined = !storable(username)
      ? undefined
      : await this.db
          .selectFrom(this.table)
          .select([...this.userSelection(), sql.ref<unknown>(this.columns.password).as('password')])
          .where(sql.ref(this.columns.username), '=', username)
          .executeTakeFirst()
    // Unknown user, unusable password (`!`), legacy hash: padded, so every wrong answer costs the same.
    const hash = row?.['password']
    const stored = typeof hash === 'string' ? hash : undefined
    const ok = await this.budget.run(() => this.verifyUniform(password, stored ?? null))
    if (row === undefined || stored === undefined || !ok) return null
    const user = this.toUser(row)
    if (!user.isActive) return null
    await this.upgradeHash(user.id, stored, password)
    return user
  }

  /**
   * Creates a user, its name normalised with NFKC (Django's `normalize_username`: `ａｄｍｉｎ`
   * is `admin`, so it cannot be made beside it), then calls the `onUserCreated` hook.
   * @throws UserCreatedHookError when the hook fails (the user exists).
   */
  async create(user: NewUser): Promise<StoredUser> {
    const password = user.password === null ? '!' : await this.hashUnderBudget(user.password)
    const c = this.columns
    const values: Record<string, unknown> = { [c.username]: normalizeUsername(user.username), [c.password]: password }
    if (this.userTable.idType === 'uuid') values[c.id] = randomUUID()
    if (typeof c.isActive === 'string') values[c.isActive] = user.isActive === false ? 0 : 1
    if (typeof c.isStaff === 'string') values[c.isStaff] = user.isStaff === true ? 1 : 0
    if (typeof c.isSuperuser === 'string') values[c.isSuperuser] = user.isSuperuser === true ? 1 : 0
    else if (user.isSuperuser === true) throw new ConfigurationError('ERR_INVALID_SETTING', 'KyselyUserStore.create of a superuser needs an "isSuperuser" column in "columns"')
    if (typeof c.dateJoined === 'string') values[c.dateJoined] = new Date().toISOString()
    const row: UserRow = await this.db.insertInto(this.table).values(values).returning(this.userSelection()).executeTakeFirstOrThrow()
    const created = this.toUser(row)
    // The insert was its own statement (autocommit): the row is committed, the hook may use it.
    await runUserCreatedHook(this.onUserCreated, created)
    return created
  }

  /**
   * Sets a user's password (`null`: unusable, Django's `set_unusable_password`), then tells the `invalidation` bus.
   * @returns false when there is no such user.
   */
  async setPassword(userId: UserId, password: string | null): Promise<boolean> {
    if (!this.validId(userId)) return false
    const hash = password === null ? '!' : await this.hashUnderBudget(password)
    return this.update(userId, { [this.columns.password]: hash })
  }

  /**
   * Activates or deactivates a user (Django's `is_active`), then tells the `invalidation`
   * bus. An inactive user no longer authenticates: password, token and session alike.
   * @returns false when there is no such user.
   * @throws ConfigurationError when the mapping has no `isActive` column (every user is active).
   */
  async setActive(userId: UserId, isActive: boolean): Promise<boolean> {
    return this.setFlag('isActive', 'setActive', userId, isActive)
  }

  /**
   * Grants or revokes staff status (Django's `is_staff`, what `IsAdminUser` reads), then
   * tells the `invalidation` bus: token caches hold the user's flags.
   * @returns false when there is no such user.
   * @throws ConfigurationError when the mapping has no `isStaff` column (no user is staff).
   */
  async setStaff(userId: UserId, isStaff: boolean): Promise<boolean> {
    return this.setFlag('isStaff', 'setStaff', userId, isStaff)
  }

  /**
   * Grants or revokes superuser status (Django's `is_superuser`), then tells the `invalidation` bus.
   * @returns false when there is no such user.
   * @throws ConfigurationError when the mapping has no `isSuperuser` column (no user is a superuser).
   */
  async setSuperuser(userId: UserId, isSuperuser: boolean): Promise<boolean> {
    return this.setFlag('isSuperuser', 'setSuperuser', userId, isSuperuser)
  }

  /**
   * Django's `update_last_login`: sets the user's `lastLogin` column to `at` (the obtain view
   * of simplejwt with `UPDATE_LAST_LOGIN`). Tells no bus: no cached authentication reads it.
   * @returns false when there is no such user, or the mapping has no `lastLogin` column.
   */
  async updateLastLogin(userId: UserId, at: Date): Promise<boolean> {
    const column = this.columns.lastLogin
    if (typeof column !== 'string' || !this.validId(userId)) return false
    const result = await this.db.updateTable(this.table).set({ [column]: at.toISOString() }).where(sql.ref(this.columns.id), '=', userId).executeTakeFirst()
    return Number(result.numUpdatedRows) > 0
  }

  /** Writes one mapped 0/1 flag column of a user (and tells the bus); `method` names the caller in the error. */
  private async setFlag(field: 'isActive' | 'isStaff' | 'isSuperuser', method: string, userId: UserId, value: boolean): Promise<boolean> {
    const column = this.columns[field]
    if (typeof column !== 'string') {
      throw new ConfigurationError('ERR_INVALID_SETTING', `KyselyUserStore.${method} needs an "${field}" column in "columns"`)
    }
    if (!this.validId(userId)) return false
    return this.update(userId, { [column]: value ? 1 : 0 })
  }

  /** Updates one user's row, and tells the bus when there was one. */
  private async update(userId: UserId, values: Record<string, unknown>): Promise<boolean> {
    const result = await this.db.updateTable(this.table).set(values).where(sql.ref(this.columns.id), '=', userId).executeTakeFirst()
    const updated = Number(result.numUpdatedRows) > 0
    if (updated) await this.invalidation?.publish(userId)
    return updated
  }
}
