import type { Kysely } from 'kysely'
import type { MaybePromise } from '../core/maybe-promise.js'
import type { UserId } from '../core/user.js'
import { generateTokenKey } from '../crypto/random.js'
import { sha256Hex } from '../crypto/sha256.js'
import { equalDigests, timingSafeEqual } from '../crypto/timing-safe-equal.js'
import type { InvalidationBus } from '../stores/invalidation-bus.js'
import type { TokenRecord, TokenStore, TokenWithUser } from '../stores/token-store.js'
import { FIND_WITH_USER_OR_ELSE, type FindWithUserOrElse } from '../stores/token-store-chain.js'
import { prepareTokenWithUser, type TokenWithUserLookup } from './token-user-join.js'
import { checkUserTable, type UserTable } from './user-table.js'
import { toDate, toUserId, type AuthDatabase, type TokensDatabase } from './schema.js'

/** Hex SHA-256 of a token key: the indexed lookup column. */
export function digest(key: string): string {
  return sha256Hex(key)
}

/** A `gatehouse_tokens` row for a key. */
export function tokenRow<Id extends UserId>(key: string, userId: Id, created: Date): { key: string; key_digest: string; user_id: Id; created: string } {
  return { key, key_digest: digest(key), user_id: userId, created: created.toISOString() }
}

/**
 * The token and user of a joined row, or `null` when there is none or its key is not exactly
 * the presented one, whose digest found the row. The two keys are compared in
 * constant time, character by character, without hashing the row's key: the row was found by
 * the presented key's digest, so its key's length is the presented key's (which the client
 * knows) on every row but a tampered or mistaken one, and a second SHA-256 per request would
 * hide nothing a client does not already know.
 */
function joinedToken(row: Readonly<Record<string, unknown>> | undefined, key: string, lookup: TokenWithUserLookup): TokenWithUser | null {
  if (row === undefined) return null
  const rowKey = row['key']
  if (typeof rowKey !== 'string' || !equalDigests(rowKey, key)) return null
  return { token: { key: rowKey, userId: toUserId(row['user_id']), created: toDate(row['created'] as Date | string) }, user: lookup.userOf(row) }
}

/** Options for `KyselyTokenStore`. */
export interface KyselyTokenStoreOptions<DB extends TokensDatabase = AuthDatabase> {
  /**
   * Your Kysely instance, typed with your whole database (`Kysely<MyDb>` where `MyDb`
   * extends `AuthDatabase`, or has `gatehouse_tokens` with integer or UUID user ids).
   */
  readonly db: Kysely<DB>
  /** Key generator. @default 40 hex chars from `crypto.randomBytes(20)` */
  readonly generateKey?: () => string
  /**
   * The layout of the users table the tokens belong to (`DEFAULT_USER_TABLE` for gatehouse's
   * own, yours as given to your `KyselyUserStore`, which has it as `users.userTable`). Given,
   * the store gains `findWithUser`: the token and its user in one SQL statement (a join on
   * that table, in this store's database), which `TokenAuthentication` then uses instead of
   * two lookups. @default none: no join
   */
  readonly joinUsers?: UserTable | undefined
  /**
   * Told after `regenerate` and `delete` change a user's token, so token caches drop the
   * old key (the bus your `MemoryTokenCache` listens to). @default none
   */
  readonly invalidation?: InvalidationBus | undefined
}

/**
 * DRF's authtoken table in SQL: one token per user (unique `user_id`), get-or-create, regenerate.
 *
 * @example
 * const tokens = new KyselyTokenStore({ db })
 * const joined = new KyselyTokenStore({ db, joinUsers: users.userTable, invalidation: bus }) // one statement per token authentication
 */
// DB only types the constructor's argument: stores of different databases are interchangeable.
export class KyselyTokenStore<DB extends TokensDatabase = AuthDatabase> implements TokenStore {
  /**
   * The token with exactly this key and its user, in one statement; `null` for an unknown
   * key or a token whose user is gone. Present only when the store was given `joinUsers`.
   * Synchronous on SQLite (a value, no promise), a promise on PostgreSQL.
   */
  readonly findWithUser?: (key: string) => MaybePromise<TokenWithUser | null>
  /** `findWithUser(key) ?? orElse()` in the driver's one answer (for `chainTokenStores`). */
  readonly [FIND_WITH_USER_OR_ELSE]?: FindWithUserOrElse
  private readonly db: Kysely<TokensDatabase>
  private readonly generateKey: () => string
  private readonly invalidation: InvalidationBus | undefined

  /** @throws ConfigurationError when `joinUsers` is not a well-formed `UserTable`. */
  constructor(options: KyselyTokenStoreOptions<DB>) {
    // Kysely<DB> is invariant in DB; the store touches only gatehouse_tokens, which DB has.
    this.db = options.db as unknown as Kysely<TokensDatabase>
    this.generateKey = options.generateKey ?? generateTokenKey
    this.invalidation = options.invalidation
    if (options.joinUsers !== undefined) {
      const users = checkUserTable(options.joinUsers, 'KyselyTokenStore option "joinUsers"')
      const lookup = prepareTokenWithUser(this.db, users, { table: 'gatehouse_tokens', columns: ['key', 'user_id', 'created'], digestColumn: 'key_digest' })
      // Keys are at most 40 characters: longer input cannot match, so skip the query.
      this.findWithUser = (key) => {
        if (key.length === 0 || key.length > 40) return null
        return lookup.run(digest(key), (row) => joinedToken(row, key, lookup))
      }
      this[FIND_WITH_USER_OR_ELSE] = (key, orElse) => {
        if (key.length === 0 || key.length > 40) return orElse()
        return lookup.run(digest(key), (row) => joinedToken(row, key, lookup) ?? orElse())
      }
    }
  }

  async findByKey(key: string): Promise<TokenRecord | null> {
    // Keys are at most 40 characters: longer input cannot match, so skip the query.
    if (key.length === 0 || key.length > 40) return null
    const row = await this.db
      .selectFrom('gatehouse_tokens')
      .select(['key', 'user_id', 'created'])
      .where('key_digest', '=', digest(key))
      .executeTakeFirst()
    if (row === undefined || !timingSafeEqual(row.key, key)) return null
    return { key: row.key, userId: toUserId(row.user_id), created: toDate(row.created) }
  }

  async getOrCreate(userId: UserId): Promise<TokenRecord> {
    const existing = await this.findByUser(userId)
    if (existing !== null) return existing
    const created = new Date()
    // A concurrent get-or-create for the same user loses the unique race harmlessly: re-read.
    await this.db
      .insertInto('gatehouse_tokens')
      .values(tokenRow(this.generateKey(), userId, created))
      .onConflict((oc) => oc.column('user_id').doNothing())
      .execute()
    const row = await this.findByUser(userId)
    if (row === null) throw new Error(`token for user ${userId} vanished during get-or-create`)
    return row
  }

  /** Replaces the user's token (or creates one), then tells the `invalidation` bus. */
  async regenerate(userId: UserId): Promise<TokenRecord> {
    const record: TokenRecord = { key: this.generateKey(), userId, created: new Date() }
    const row = tokenRow(record.key, userId, record.created)
    // One statement, atomic on both engines: delete-then-insert in a transaction lets two
    // concurrent regenerations collide on the unique user_id (a 500) under READ COMMITTED.
    await this.db
      .insertInto('gatehouse_tokens')
      .values(row)
      .onConflict((oc) =>
        oc.column('user_id').doUpdateSet({ key: row.key, key_digest: row.key_digest, created: row.created }),
      )
      .execute()
    await this.invalidation?.publish(userId)
    return record
  }

  /**
   * Deletes the user's token (its key stops working; the next `getOrCreate` makes a new
   * one), then tells the `invalidation` bus. @returns false when the user had no token.
   */
  async delete(userId: UserId): Promise<boolean> {
    const result = await this.db.deleteFrom('gatehouse_tokens').where('user_id', '=', userId).executeTakeFirst()
    const deleted = Number(result.numDeletedRows) > 0
    if (deleted) await this.invalidation?.publish(userId)
    return deleted
  }

  /**
   * Gives a token to each of `userIds` that has none, in one statement (an existing token is
   * never replaced, so nothing is invalidated). What `drf-gatehouse create-token --all` runs.
   * @returns how many tokens were created.
   */
  async createMissing(userIds: readonly UserId[]): Promise<number> {
    if (userIds.length === 0) return 0
    const created = new Date()
    const result = await this.db
      .insertInto('gatehouse_tokens')
      .values(userIds.map((userId) => tokenRow(this.generateKey(), userId, created)))
      .onConflict((oc) => oc.column('user_id').doNothing())
      .executeTakeFirst()
    return Number(result.numInsertedOrUpdatedRows ?? 0)
  }

  /** The user's token (its key included: never show it in a listing), or `null`. */
  async findByUser(userId: UserId): Promise<TokenRecord | null> {
    const row = await this.db
      .selectFrom('gatehouse_tokens')
      .select(['key', 'user_id', 'created'])
      .where('user_id', '=', userId)
      .executeTakeFirst()
    return row === undefined ? null : { key: row.key, userId: toUserId(row.user_id), created: toDate(row.created) }
  }
}
