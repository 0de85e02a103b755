import type { UserId } from '../core/user.js'

/** One server-side session (Django's `django_session` row, decoded). */
export interface SessionRecord {
  readonly userId: UserId | null
  /** Free-form data kept with the session (the CSRF secret when stored in the session, etc.). */
  readonly data: Readonly<Record<string, unknown>>
  readonly expiresAt: Date
}

/** Where sessions live: SQL (Kysely) by default, Redis for scale-out. */
export interface SessionStore {
  /** The live (unexpired) session with this key, or `null`. */
  get(sessionKey: string): Promise<SessionRecord | null>
  save(sessionKey: string, record: SessionRecord): Promise<void>
  delete(sessionKey: string): Promise<void>
  /**
   * Optional: ends every session of a user (logs them out everywhere; the admin pages'
   * "end sessions"). @returns how many sessions there were.
   */
  deleteForUser?(userId: UserId): Promise<number>
}
