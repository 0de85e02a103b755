import type { Kysely } from 'kysely'
import type { JwtBlacklistStore, OutstandingJwt } from '../stores/jwt-blacklist-store.js'

/** `gatehouse_jwt_tokens` (see `jwtBlacklistMigrations`). */
export interface JwtTokensTable {
  jti: string
  user_id: string | null
  expires_at: Date | string
  blacklisted_at: Date | string | null
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

  async blacklist(token: OutstandingJwt): Promise<void> {
    if (!storable(token.jti)) return
    const now = new Date().toISOString()
    await this.db
      .insertInto('gatehouse_jwt_tokens')
      .values(row(token, now))
      .onConflict((oc) => oc.column('jti').doUpdateSet({ blacklisted_at: (eb) => eb.fn.coalesce('gatehouse_jwt_tokens.blacklisted_at', eb.val(now)) }))
      .execute()
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

  async flushExpired(now: Date): Promise<number> {
    const result = await this.db.deleteFrom('gatehouse_jwt_tokens').where('expires_at', '<', now.toISOString()).executeTakeFirst()
    return Number(result.numDeletedRows)
  }
}

/** NUL is refused by PostgreSQL (a driver error otherwise). */
function storable(jti: string): boolean {
  return jti.length > 0 && jti.length <= MAX_JTI && !jti.includes('\0')
}

function row(token: OutstandingJwt, blacklistedAt: string | null): JwtTokensTable {
  return {
    jti: token.jti,
    user_id: token.userId === null ? null : String(token.userId),
    expires_at: token.expiresAt.toISOString(),
    blacklisted_at: blacklistedAt,
  }
}
