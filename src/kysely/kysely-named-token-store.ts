import { PostgresAdapter, sql, type Kysely } from 'kysely'
import type { MaybePromise } from '../core/maybe-promise.js'
import { ConfigurationError } from '../core/errors.js'
import type { UserId } from '../core/user.js'
import { randomAlphanumeric } from '../crypto/random.js'
import type { InvalidationBus } from '../stores/invalidation-bus.js'
import { NamedTokenLimitExceeded, type CreatedNamedToken, type NamedTokenInfo, type NamedTokenLimit, type NamedTokenRecord, type NamedTokenStore, type NewNamedToken } from '../stores/named-token-store.js'
import type { TokenRecord, TokenWithUser } from '../stores/token-store.js'
import { FIND_WITH_USER_OR_ELSE, type FindWithUserOrElse } from '../stores/token-store-chain.js'
import { digest } from './kysely-token-store.js'
import { prepareTokenWithUser } from './token-user-join.js'
import { checkUserTable, type UserRow, type UserTable } from './user-table.js'
import { toDate, toUserId, type AuthDatabase, type NamedTokensDatabase } from './schema.js'

/** The default prefix of new tokens: secret scanners can match `gth_` and 40 letters and digits. */
export const DEFAULT_NAMED_TOKEN_PREFIX = 'gth_'

/** Random characters after the prefix: 40 of `[A-Za-z0-9]`, about 238 bits. */
const SECRET_LENGTH = 40
/** Characters of the secret part kept in `display_prefix` (about 36 bits of 238). */
const DISPLAY_CHARS = 6
/** No token is longer (prefix included): longer input cannot match, so it is not looked up. */
const MAX_KEY_LENGTH = 256
/** The largest id a `serial` column holds. */
const MAX_ID = 2_147_483_647
const PREFIX = /^[A-Za-z0-9_]{0,16}$/

/** Options for `KyselyNamedTokenStore`. */
export interface KyselyNamedTokenStoreOptions<DB extends NamedTokensDatabase = AuthDatabase> {
  /** Your Kysely instance (its database has `gatehouse_named_tokens`, made by `authMigrations`). */
  readonly db: Kysely<DB>
  /**
   * Put before every new token, so secret scanners can find a leaked one (GitHub's `ghp_`):
   * up to 16 of `[A-Za-z0-9_]`, `''` for none. Tokens made with another prefix keep working.
   * @default 'gth_'
   */
  readonly prefix?: string
  /** Gives the store `findWithUser` (token and user in one statement), as `KyselyTokenStore`'s option. @default none: no join */
  readonly joinUsers?: UserTable | undefined
  /** Told after `revoke` and `revokeAll`, so token caches drop the revoked tokens. @default none */
  readonly invalidation?: InvalidationBus | undefined
  /** A token's last-used time is written at most once per this many ms. @default 60_000 */
  readonly touchIntervalMs?: number
  /** @default () => new Date() */
  readonly now?: () => Date
}

/** Token ids whose last write this process remembers, at most (oldest forgotten first). */
const MEMO_LIMIT = 10_000

const TOKEN_COLUMNS = ['id', 'user_id', 'name', 'created', 'expires_at'] as const

interface TokenRow {
  readonly id: number
  readonly user_id: unknown
  readonly name: string
  readonly created: Date | string
  readonly expires_at: Date | string | null
}

function toDateOrNull(value: Date | string | null): Date | null {
  return value === null ? null : toDate(value)
}

/** True for a record a `KyselyNamedTokenStore` answered (a DRF token has no id nor name). */
function isNamedRecord(token: TokenRecord): token is NamedTokenRecord {
  const named = token as Partial<NamedTokenRecord>
  return typeof named.id === 'number' && typeof named.name === 'string'
}

/**
 * The safer token mode in SQL (`gatehouse_named_tokens`): many named tokens per user, each
 * kept only as the hex SHA-256 of the token (tokens are 238 random bits, so a fast digest is
 * enough, as GitHub and django-rest-knox do). Expired tokens are refused like unknown ones.
 * The last-used time is written at most once a minute per token, and a process remembers its
 * own writes so a busy token costs no UPDATE per request.
 *
 * @example
 * const named = new KyselyNamedTokenStore({ db, joinUsers: users.userTable, invalidation: bus })
 * const { key } = await named.create(user.id, { name: 'laptop', expiresAt: new Date(Date.now() + 86_400_000) })
 * new TokenAuthentication({ tokens: named, users })
 */
// DB only types the constructor's argument: stores of different databases are interchangeable.
export class KyselyNamedTokenStore<DB extends NamedTokensDatabase = AuthDatabase> implements NamedTokenStore {
  /** The token and its user in one statement; present only when the store was given `joinUsers`. */
  readonly findWithUser?: (key: string) => MaybePromise<TokenWithUser | null>
  /** `findWithUser(key) ?? orElse()` in the driver's one answer (for `chainTokenStores`). */
  readonly [FIND_WITH_USER_OR_ELSE]?: FindWithUserOrElse
  readonly prefix: string
  private readonly db: Kysely<NamedTokensDatabase>
  private readonly invalidation: InvalidationBus | undefined
  private readonly touchIntervalMs: number
  private readonly now: () => Date
  /** Token id → when this process last wrote its last-used time (ms), oldest first. */
  private readonly touched = new Map<number, number>()

  /** @throws ConfigurationError for a malformed `prefix` or `touchIntervalMs`, or a malformed `joinUsers`. */
  constructor(options: KyselyNamedTokenStoreOptions<DB>) {
    this.db = options.db as unknown as Kysely<NamedTokensDatabase>
    this.prefix = options.prefix ?? DEFAULT_NAMED_TOKEN_PREFIX
    if (typeof this.prefix !== 'string' || !PREFIX.test(this.prefix)) {
      throw new ConfigurationError('ERR_INVALID_SETTING', 'KyselyNamedTokenStore option "prefix" must be up to 16 of [A-Za-z0-9_]')
    }
    this.touchIntervalMs = options.touchIntervalMs ?? 60_000
    if (!Number.isSafeInteger(this.touchIntervalMs) || this.touchIntervalMs < 0) {
      throw new ConfigurationError('ERR_INVALID_SETTING', 'KyselyNamedTokenStore option "touchIntervalMs" must be a non-negative integer')
    }
    this.invalidation = options.invalidation
    this.now = options.now ?? (() => new Date())
    if (options.joinUsers !== undefined) {
      const users = checkUserTable(options.joinUsers, 'KyselyNamedTokenStore option "joinUsers"')
      const lookup = prepareTokenWithUser(this.db, users, { table: 'gatehouse_named_tokens', columns: TOKEN_COLUMNS, digestColumn: 'digest' })
      const joined = (row: UserRow | undefined, key: string): TokenWithUser | null => {
        if (row === undefined) return null
        const token = this.toRecord(key, row as unknown as TokenRow)
        return token === null ? null : { token, user: lookup.userOf(row) }
      }
      // Synchronous on SQLite (a value, no promise), the driver's one promise on PostgreSQL.
      this.findWithUser = (key) => (key.length === 0 || key.length > MAX_KEY_LENGTH ? null : lookup.run(digest(key), (row) => joined(row, key)))
      this[FIND_WITH_USER_OR_ELSE] = (key, orElse) =>
        key.length === 0 || key.length > MAX_KEY_LENGTH ? orElse() : lookup.run(digest(key), (row) => joined(row, key) ?? orElse())
    }
  }

  /** A new token: the prefix, then 40 characters of `[A-Za-z0-9]` from the CSPRNG. */
  generateKey(): string {
    return this.prefix + randomAlphanumeric(SECRET_LENGTH)
  }

  /** What a listing shows of `key`: its prefix (when it has this store's) and the next 6 characters. */
  displayPrefix(key: string): string {
    return key.slice(0, (key.startsWith(this.prefix) ? this.prefix.length : 0) + DISPLAY_CHARS)
  }

  async create(userId: UserId, token: NewNamedToken): Promise<CreatedNamedToken> {
    const key = this.generateKey()
    const created = this.now()
    const expiresIn = token.expiresIn ?? null
    const expiresAt = token.expiresAt ?? (expiresIn === null ? null : new Date(created.getTime() + expiresIn * 1000))
    const info = token.limit === undefined ? await this.insert(this.db, userId, key, token.name, created, expiresAt) : await this.insertWithin(token.limit, userId, key, token.name, created, expiresAt)
    if (info === null) throw new Error('a new token collided with an existing digest')
    return { key, info }
  }

  /**
   * `insert` only while the user holds fewer than `limit.max` tokens, counted and inserted as
   * one step. PostgreSQL: in a transaction that first takes a transaction-scoped advisory lock
   * on (this table, the user), so concurrent creates for one user queue there and each counts
   * the rows the previous ones committed (a count in the INSERT alone would not see them). SQLite:
   * one `INSERT … SELECT … WHERE (count) < max` statement, which holds the write lock from
   * its count to its insert.
   */
  private async insertWithin(limit: NamedTokenLimit, userId: UserId, key: string, name: string, created: Date, expiresAt: Date | null): Promise<NamedTokenInfo | null> {
    if (!Number.isSafeInteger(limit.max) || limit.max < 1) throw new ConfigurationError('ERR_INVALID_SETTING', 'a named-token limit must be a positive integer')
    const now = this.now().toISOString()
    const held = (db: Kysely<NamedTokensDatabase>) => {
      let query = db.selectFrom('gatehouse_named_tokens').select((eb) => eb.fn.countAll<number | string>().as('n')).where('user_id', '=', userId)
      if (limit.name !== undefined) query = query.where('name', '=', limit.name)
      if (limit.unexpiredOnly === true) query = query.where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      return query
    }
    if (this.db.getExecutor().adapter instanceof PostgresAdapter) {
      const locked = async (trx: Kysely<NamedTokensDatabase>): Promise<NamedTokenInfo | null> => {
        await sql`select pg_advisory_xact_lock(hashtext('gatehouse_named_tokens'), hashtext(${String(userId)}))`.execute(trx)
        const row = await held(trx).executeTakeFirst()
        if (Number(row?.n ?? 0) >= limit.max) throw new NamedTokenLimitExceeded(limit.max)
        return this.insert(trx, userId, key, name, created, expiresAt)
      }
      return this.db.isTransaction ? locked(this.db) : this.db.transaction().execute(locked)
    }
    const displayPrefix = this.displayPrefix(key)
    const row = await this.db
      .insertInto('gatehouse_named_tokens')
      .columns(['user_id', 'name', 'display_prefix', 'digest', 'created', 'expires_at', 'last_used_at'])
      .expression(
        this.db
          .selectNoFrom((eb) => [
            eb.val(userId).as('user_id'),
            eb.val(name).as('name'),
            eb.val(displayPrefix).as('display_prefix'),
            eb.val(digest(key)).as('digest'),
            eb.val(created.toISOString()).as('created'),
            eb.val(expiresAt === null ? null : expiresAt.toISOString()).as('expires_at'),
            eb.val(null).as('last_used_at'),
          ])
          .where((eb) => eb(held(this.db), '<', limit.max)),
      )
      .onConflict((oc) => oc.column('digest').doNothing())
      .returning(['id'])
      .executeTakeFirst()
    if (row === undefined) throw new NamedTokenLimitExceeded(limit.max)
    return { id: Number(row.id), userId, name, displayPrefix, created, expiresAt, lastUsedAt: null }
  }

  /**
   * Keeps an existing key (a DRF-mode token, say) as a named token: its digest only, so the
   * client goes on using the same key. Nothing happens when the key is already here.
   * @returns the new token, or `null` when a token with this key existed already.
   */
  async adopt(userId: UserId, key: string, token: NewNamedToken & { readonly created?: Date }): Promise<NamedTokenInfo | null> {
    return this.insert(this.db, userId, key, token.name, token.created ?? this.now(), token.expiresAt ?? null)
  }

  private async insert(db: Kysely<NamedTokensDatabase>, userId: UserId, key: string, name: string, created: Date, expiresAt: Date | null): Promise<NamedTokenInfo | null> {
    const displayPrefix = this.displayPrefix(key)
    const row = await db
      .insertInto('gatehouse_named_tokens')
      .values({
        user_id: userId,
        name,
        display_prefix: displayPrefix,
        digest: digest(key),
        created: created.toISOString(),
        expires_at: expiresAt === null ? null : expiresAt.toISOString(),
        last_used_at: null,
      })
      .onConflict((oc) => oc.column('digest').doNothing())
      .returning(['id'])
      .executeTakeFirst()
    if (row === undefined) return null
    return { id: Number(row.id), userId, name, displayPrefix, created, expiresAt, lastUsedAt: null }
  }

  async findByKey(key: string): Promise<NamedTokenRecord | null> {
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) return null
    const row = await this.db
      .selectFrom('gatehouse_named_tokens')
      .select(TOKEN_COLUMNS)
      .where('digest', '=', digest(key))
      .executeTakeFirst()
    return row === undefined ? null : this.toRecord(key, row)
  }

  /** The record of a row for the presented `key`; `null` once it has expired. */
  private toRecord(key: string, row: TokenRow): NamedTokenRecord | null {
    const expiresAt = toDateOrNull(row.expires_at)
    if (expiresAt !== null && expiresAt.getTime() <= this.now().getTime()) return null
    return { key, id: Number(row.id), userId: toUserId(row.user_id), name: row.name, created: toDate(row.created), expiresAt }
  }

  /**
   * Records that the token was used now, at most once per `touchIntervalMs` per token: in
   * SQL (`last_used_at` older than the interval, so processes sharing a database write once
   * between them) and in this process's memory (a busy token issues no UPDATE per request).
   * A failed write is dropped. With nothing to write (another store's record, a token written
   * within the interval) it answers synchronously.
   */
  touch(token: TokenRecord): MaybePromise<void> {
    if (!isNamedRecord(token)) return
    const now = this.now()
    const last = this.touched.get(token.id)
    if (last !== undefined && now.getTime() - last < this.touchIntervalMs) return
    this.touched.delete(token.id)
    this.touched.set(token.id, now.getTime())
    if (this.touched.size > MEMO_LIMIT) {
      const oldest = this.touched.keys().next()
      if (oldest.done !== true) this.touched.delete(oldest.value)
    }
    const cutoff = new Date(now.getTime() - this.touchIntervalMs).toISOString()
    // Best effort: the last-used time is informative, never worth failing a request for.
    const forget = (): void => {
      this.touched.delete(token.id)
    }
    try {
      return this.db
        .updateTable('gatehouse_named_tokens')
        .set({ last_used_at: now.toISOString() })
        .where('id', '=', token.id)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', cutoff)]))
        .execute()
        .then(() => undefined, forget)
    } catch {
      forget()
      return
    }
  }

  async list(userId: UserId): Promise<NamedTokenInfo[]> {
    const rows = await this.db
      .selectFrom('gatehouse_named_tokens')
      .select(['id', 'user_id', 'name', 'display_prefix', 'created', 'expires_at', 'last_used_at'])
      .where('user_id', '=', userId)
      .orderBy('id')
      .execute()
    return rows.map((row) => ({
      id: Number(row.id),
      userId: toUserId(row.user_id),
      name: row.name,
      displayPrefix: row.display_prefix,
      created: toDate(row.created),
      expiresAt: toDateOrNull(row.expires_at as Date | string | null),
      lastUsedAt: toDateOrNull(row.last_used_at as Date | string | null),
    }))
  }

  /** Deletes one of the user's tokens, then tells the `invalidation` bus. @returns false when the user has no such token. */
  async revoke(userId: UserId, id: number): Promise<boolean> {
    // Ids are PostgreSQL `serial`s: anything outside 1..2^31-1 names no token (and must not reach SQL).
    if (!Number.isSafeInteger(id) || id < 1 || id > MAX_ID) return false
    const result = await this.db.deleteFrom('gatehouse_named_tokens').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst()
    const deleted = Number(result.numDeletedRows) > 0
    if (deleted) await this.invalidation?.publish(userId)
    return deleted
  }

  /**
   * Deletes every expired token (of every user), from a scheduled job or
   * `drf-gatehouse clear-expired-tokens`. Nothing is published: expired tokens are refused anyway.
   * @returns how many were deleted
   */
  async clearExpired(): Promise<number> {
    const result = await this.db.deleteFrom('gatehouse_named_tokens').where('expires_at', '<=', this.now().toISOString()).executeTakeFirst()
    return Number(result.numDeletedRows)
  }

  /** Deletes every token of the user, then tells the `invalidation` bus. @returns how many there were. */
  async revokeAll(userId: UserId): Promise<number> {
    const result = await this.db.deleteFrom('gatehouse_named_tokens').where('user_id', '=', userId).executeTakeFirst()
    const deleted = Number(result.numDeletedRows)
    if (deleted > 0) await this.invalidation?.publish(userId)
    return deleted
  }
}
