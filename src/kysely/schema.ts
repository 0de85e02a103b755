import type { ColumnType, Generated } from 'kysely'

/** Timestamps: `timestamptz` on PostgreSQL (read as `Date`), ISO-8601 text on SQLite. */
export type Timestamp = ColumnType<Date | string, Date | string, Date | string>

export interface UsersTable {
  id: Generated<number>
  username: string
  /** `scrypt$…` or Django's `pbkdf2_sha256$…`; `!` for an unusable password. */
  password: string
  /** 0 or 1 (integers keep SQLite and PostgreSQL identical). */
  is_active: number
  is_staff: number
  date_joined: Timestamp
}

export interface TokensTable {
  key: string
  /** Hex SHA-256 of `key`: the lookup column. */
  key_digest: string
  user_id: number
  created: Timestamp
}

export interface SessionsTable {
  session_key: string
  user_id: number | null
  /** JSON text. */
  data: string
  expires_at: Timestamp
}

/** The tables gatehouse's Kysely stores use. Apps extend it with their own tables. */
export interface AuthDatabase {
  gatehouse_users: UsersTable
  gatehouse_tokens: TokensTable
  gatehouse_sessions: SessionsTable
}

/** Converts a stored timestamp (Date on PostgreSQL, text on SQLite) to a `Date`. */
export function toDate(value: Date | string): Date {
  return value instanceof Date ? value : new Date(value)
}
