import type { ColumnType, Insertable, Kysely } from 'kysely'
import type { UserId } from '../core/user.js'
import type { JwtBlacklistStore, JwtTokenInfo, OutstandingJwt } from '../stores/jwt-blacklist-store.js'

/** `gatehouse_jwt_tokens` (see `jwtBlacklistMigrations`). */
export interface JwtTokensTable {
  jti: string
  user_id: string | null
  expires_at: Date | string
  blacklisted_at: Date | string | null
  /** The token's `iat` (migration `0002_jwt_tokens_created_at`); `null` for older rows. */
  created_at: ColumnType<Date | string | null, Date | string | null | undefined, Date | string | null>
}

/** A database with the JWT blacklist table. */
export interface JwtBlacklistDatabase {
  gatehouse_jwt_tokens: JwtTokensTable
}

/** Options for `KyselyJwtBlacklistStore`. */
export interface KyselyJwtBlacklistStoreOptions<DB extends JwtBlacklistDatabase> {
  /** Your Kysely instance, typed with a database that has `gatehouse_jwt_tokens`. */
  readonly db: Kysely<DB>
}

/** simplejwt's longest `jti` column; a longer claim cannot be stored, so it is never blacklisted. */
const MAX_JTI = 255

/**
 * simplejwt's `token_blacklist` app in SQL, on SQLite and PostgreSQL.
 *
 * @example
 * const blacklist = new KyselyJwtBlacklistStore({ db })
 * api.view(jwtRefreshView({ codec, users, blacklist }))
 */
export class KyselyJwtBlacklistStore<DB extends JwtBlacklistDatabase = JwtBlacklistDatabase> implements JwtBlacklistStore {
  private readonly db: Kysely<JwtBlacklistDatabase>

  constructor(options: KyselyJwtBlacklistStoreOptions<DB>) {
    this.db = options.db as unknown as Kysely<JwtBlacklistDatabase>
  }

  async addOutstanding(token: OutstandingJwt): Promise<void> {
    if (!storable(token.jti)) return
    await this.db.insertInto('gatehouse_jwt_tokens').values(row(token, null)).onConflict((oc) => oc.column('jti').doNothing()).execute()
  }

  async blacklist(token: OutstandingJwt): Promise<boolean> {
    // An unstorable jti cannot be recorded, so it can never be claimed either.
    if (!storable(token.jti)) return false
    const now = new Date().toISOString()
    // Claimed in one statement each, never read-then-write: the insert of an unknown token,
    // else the update of a known one that is not blacklisted yet. Of two concurrent claims
    // the database lets one write (a unique key; a row lock, whose WHERE PostgreSQL
    // re-checks once the first commits); the other changes no row.
    const inserted = await this.db.insertInto('gatehouse_jwt_tokens').values(row(token, now)).onConflict((oc) => oc.column('jti').doNothing()).executeTakeFirst()
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0) return true
    const updated = await this.db
      .updateTable('gatehouse_jwt_tokens')
      .set({ blacklisted_at: now })
      .where('jti', '=', token.jti)
      .where('blacklisted_at', 'is', null)
      .executeTakeFirst()
    return Number(updated.numUpdatedRows) > 0
  }

  async isBlacklisted(jti: string): Promise<boolean> {
    if (!storable(jti)) return false
    const found = await this.db
      .selectFrom('gatehouse_jwt_tokens')
      .select('jti')
      .where('jti', '=', jti)
      .where('blacklisted_at', 'is not', null)
      .executeTakeFirst()
    return found !== undefined
  }

  async listForUser(userId: UserId, limit: number): Promise<readonly JwtTokenInfo[]> {
    const rows = await this.db
      .selectFrom('gatehouse_jwt_tokens')
      .select(['jti', 'created_at', 'expires_at', 'blacklisted_at'])
      .where('user_id', '=', String(userId))
      .orderBy('expires_at', 'desc')
      .orderBy('jti')
      .limit(Math.max(0, Math.trunc(limit)))
      .execute()
    return rows.map((r) => ({ jti: r.jti, createdAt: toDate(r.created_at), expiresAt: toDate(r.expires_at) ?? new Date(0), blacklistedAt: toDate(r.blacklisted_at) }))
  }

  async blacklistAllForUser(userId: UserId): Promise<number> {
    const result = await this.db
      .updateTable('gatehouse_jwt_tokens')
      .set({ blacklisted_at: new Date().toISOString() })
      .where('user_id', '=', String(userId))
      .where('blacklisted_at', 'is', null)
      .executeTakeFirst()
    return Number(result.numUpdatedRows)
  }

  async flushExpired(now: Date): Promise<number> {
    const result = await this.db.deleteFrom('gatehouse_jwt_tokens').where('expires_at', '<', now.toISOString()).executeTakeFirst()
    return Number(result.numDeletedRows)
  }
}

/** NUL is refused by PostgreSQL (a driver error otherwise). */
function storable(jti: string): boolean {
  return jti.length > 0 && jti.length <= MAX_JTI && !jti.includes('\0')
}

function row(token: OutstandingJwt, blacklistedAt: string | null): Insertable<JwtTokensTable> {
  return {
    jti: token.jti,
    user_id: token.userId === null ? null : String(token.userId),
    expires_at: token.expiresAt.toISOString(),
    blacklisted_at: blacklistedAt,
    created_at: token.createdAt === undefined || Number.isNaN(token.createdAt.getTime()) ? null : token.createdAt.toISOString(),
  }
}

/** A timestamp column as read: `Date` on PostgreSQL, ISO text on SQLite. */
function toDate(value: Date | string | null): Date | null {
  if (value === null) return null
  return value instanceof Date ? value : new Date(value)
}
