import type { Kysely, Selectable } from 'kysely'
import type { StoredUser, UserId } from '../core/user.js'
import { DEFAULT_SCRYPT, hashPassword, needsRehash, verifyPasswordUniform, type ScryptParams } from '../crypto/passwords.js'
import type { NewUser, UserStore } from '../stores/user-store.js'
import type { AuthDatabase, UsersTable } from './schema.js'

function toUser(row: Pick<Selectable<UsersTable>, 'id' | 'username' | 'is_active' | 'is_staff'>): StoredUser {
  return Object.freeze({
    id: Number(row.id),
    username: row.username,
    isActive: Number(row.is_active) === 1,
    isStaff: Number(row.is_staff) === 1,
    isAuthenticated: true as const,
  })
}

/**
 * PostgreSQL refuses text containing NUL ("invalid byte sequence"), and no stored
 * name can contain one, so such input is "not found" rather than a driver error (a 500).
 */
function storable(text: string): boolean {
  return !text.includes('\0')
}

/** Options for `KyselyUserStore`. */
export interface KyselyUserStoreOptions {
  /**
   * scrypt cost for new hashes, for the rehash of weaker ones at login, and for the dummy
   * check that pads a wrong password for an unknown user. Existing hashes keep theirs until
   * their user logs in. Lower it only in tests and demos (a cheaper cost makes stolen hashes
   * cheaper to crack): the reference API's `GATEHOUSE_SCRYPT_N`, for instance.
   * @default DEFAULT_SCRYPT (OWASP: N=2^17, r=8, p=1)
   */
  readonly scrypt?: ScryptParams
}

/** Users in SQL (`gatehouse_users`), passwords hashed with scrypt. */
export class KyselyUserStore implements UserStore {
  private readonly scrypt: ScryptParams

  constructor(
    private readonly db: Kysely<AuthDatabase>,
    options: KyselyUserStoreOptions = {},
  ) {
    this.scrypt = options.scrypt ?? DEFAULT_SCRYPT
  }

  async findById(id: UserId): Promise<StoredUser | null> {
    const row = await this.db
      .selectFrom('gatehouse_users')
      .select(['id', 'username', 'is_active', 'is_staff'])
      .where('id', '=', id)
      .executeTakeFirst()
    return row === undefined ? null : toUser(row)
  }

  async findByUsername(username: string): Promise<StoredUser | null> {
    if (!storable(username)) return null
    const row = await this.db
      .selectFrom('gatehouse_users')
      .select(['id', 'username', 'is_active', 'is_staff'])
      .where('username', '=', username)
      .executeTakeFirst()
    return row === undefined ? null : toUser(row)
  }

  async checkPassword(user: StoredUser, password: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('gatehouse_users')
      .select('password')
      .where('id', '=', user.id)
      .executeTakeFirst()
    // Same hashing work whatever the account, so the answer's timing says nothing about it.
    const ok = await verifyPasswordUniform(password, row?.password ?? null, this.scrypt)
    if (ok && row !== undefined) await this.upgradeHash(user.id, row.password, password)
    return ok
  }

  /** Replaces a hash that verified but is weaker than this store's (Django's `must_update`). */
  private async upgradeHash(userId: UserId, encoded: string, password: string): Promise<void> {
    if (!needsRehash(encoded, this.scrypt)) return
    const hash = await hashPassword(password, this.scrypt)
    // Only if unchanged meanwhile: a concurrent password change wins.
    await this.db.updateTable('gatehouse_users').set({ password: hash }).where('id', '=', userId as number).where('password', '=', encoded).execute()
  }

  /**
   * Finds a user by name and checks the password, spending the same hashing time
   * whether or not the user exists. Inactive users never authenticate (Django's ModelBackend).
   */
  async authenticate(username: string, password: string): Promise<StoredUser | null> {
    const row = !storable(username)
      ? undefined
      : await this.db
          .selectFrom('gatehouse_users')
          .select(['id', 'username', 'is_active', 'is_staff', 'password'])
          .where('username', '=', username)
          .executeTakeFirst()
    // Unknown user, unusable password (`!`), legacy hash: padded, so every wrong answer costs the same.
    const ok = await verifyPasswordUniform(password, row?.password ?? null, this.scrypt)
    if (row === undefined || !ok) return null
    const user = toUser(row)
    if (!user.isActive) return null
    await this.upgradeHash(user.id, row.password, password)
    return user
  }

  async create(user: NewUser): Promise<StoredUser> {
    const password = user.password === null ? '!' : await hashPassword(user.password, this.scrypt)
    const row = await this.db
      .insertInto('gatehouse_users')
      .values({
        username: user.username,
        password,
        is_active: user.isActive === false ? 0 : 1,
        is_staff: user.isStaff === true ? 1 : 0,
        date_joined: new Date().toISOString(),
      })
      .returning(['id', 'username', 'is_active', 'is_staff'])
      .executeTakeFirstOrThrow()
    return toUser(row)
  }

  /**
   * Sets a user's password (`null`: an unusable one, as Django's `set_unusable_password`).
   * @returns false when there is no such user.
   */
  async setPassword(userId: UserId, password: string | null): Promise<boolean> {
    const hash = password === null ? '!' : await hashPassword(password, this.scrypt)
    const result = await this.db.updateTable('gatehouse_users').set({ password: hash }).where('id', '=', userId as number).executeTakeFirst()
    return Number(result.numUpdatedRows) > 0
  }
}
