import type { Kysely } from 'kysely'
import type { UserId } from '../core/user.js'
import type { SessionRecord, SessionStore } from '../stores/session-store.js'
import { toDate, toUserId, type AuthDatabase, type SessionsDatabase } from './schema.js'

/** Options for `KyselySessionStore`. */
export interface KyselySessionStoreOptions<DB extends SessionsDatabase = AuthDatabase> {
  /**
   * Your Kysely instance, typed with your whole database (`Kysely<MyDb>` where `MyDb`
   * extends `AuthDatabase`, or has `gatehouse_sessions` with integer or UUID user ids).
   */
  readonly db: Kysely<DB>
  /** The clock expiry is judged by (ms since the epoch). @default Date.now */
  readonly now?: () => number
}

/**
 * Sessions in SQL (`gatehouse_sessions`), data as JSON text. Expired rows read as absent.
 *
 * @example
 * const sessions = new KyselySessionStore({ db })
 */
// DB only types the constructor's argument: stores of different databases are interchangeable.
export class KyselySessionStore<DB extends SessionsDatabase = AuthDatabase> implements SessionStore {
  private readonly db: Kysely<SessionsDatabase>
  private readonly now: () => number

  constructor(options: KyselySessionStoreOptions<DB>) {
    // Kysely<DB> is invariant in DB; the store touches only gatehouse_sessions, which DB has.
    this.db = options.db as unknown as Kysely<SessionsDatabase>
    this.now = options.now ?? Date.now
  }

  async get(sessionKey: string): Promise<SessionRecord | null> {
    // Longer keys cannot exist; NUL is refused by PostgreSQL (a driver error, i.e. a 500, otherwise).
    if (sessionKey.length === 0 || sessionKey.length > 64 || sessionKey.includes('\0')) return null
    const row = await this.db
      .selectFrom('gatehouse_sessions')
      .select(['user_id', 'data', 'expires_at'])
      .where('session_key', '=', sessionKey)
      .executeTakeFirst()
    if (row === undefined) return null
    const expiresAt = toDate(row.expires_at)
    if (expiresAt.getTime() <= this.now()) return null
    let data: Record<string, unknown> = {}
    try {
      const parsed: unknown = JSON.parse(row.data)
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) data = parsed as Record<string, unknown>
    } catch {
      // A corrupt row is treated as an empty session rather than a crash.
    }
    return { userId: row.user_id === null ? null : toUserId(row.user_id), data, expiresAt }
  }

  async save(sessionKey: string, record: SessionRecord): Promise<void> {
    const values = {
      session_key: sessionKey,
      user_id: record.userId,
      data: JSON.stringify(record.data),
      expires_at: record.expiresAt.toISOString(),
    }
    await this.db
      .insertInto('gatehouse_sessions')
      .values(values)
      .onConflict((oc) =>
        oc.column('session_key').doUpdateSet({ user_id: values.user_id, data: values.data, expires_at: values.expires_at }),
      )
      .execute()
  }

  async delete(sessionKey: string): Promise<void> {
    await this.db.deleteFrom('gatehouse_sessions').where('session_key', '=', sessionKey).execute()
  }

  /** Deletes every session of the user (expired ones too). @returns how many rows there were. */
  async deleteForUser(userId: UserId): Promise<number> {
    const result = await this.db.deleteFrom('gatehouse_sessions').where('user_id', '=', userId).executeTakeFirst()
    return Number(result.numDeletedRows)
  }

  /** Deletes expired sessions; returns how many. Run it now and then (Django's clearsessions). */
  async clearExpired(): Promise<number> {
    const result = await this.db
      .deleteFrom('gatehouse_sessions')
      .where('expires_at', '<=', new Date(this.now()).toISOString())
      .executeTakeFirst()
    return Number(result.numDeletedRows)
  }
}
