/**
 * The first step of `drf-gatehouse import-django`: Django's users (`auth_user`) and DRF's tokens
 * (`authtoken_token`) read from its SQLite or PostgreSQL database, read-only (a read-only
 * SQLite connection, a read-only PostgreSQL transaction), and turned into plain rows.
 */
import { parseDatabaseUrl, redactUrl, type DialectName } from '../../kysely/database.js'
import { toFlag } from '../../kysely/schema.js'

/** An expected failure of the import (no Django tables, unreadable source): printed as `gatehouse: <message>`. */
export class DjangoImportError extends Error {}

/** One row of Django's users table, as read. */
export interface DjangoUser {
  /** Django's primary key, when it is an integer gatehouse's `serial` id can hold; else `null`. */
  readonly id: number | null
  /** The key tokens refer to it by (the id as text, whatever its type). */
  readonly ref: string
  readonly username: string
  readonly password: string
  readonly isActive: boolean
  readonly isStaff: boolean
  readonly isSuperuser: boolean
  /** `null` when the table has no such column or the value is not a date. */
  readonly dateJoined: Date | null
}

/** One row of DRF's `authtoken_token`. */
export interface DjangoToken {
  readonly key: string
  /** The Django user id it belongs to, as text. */
  readonly userRef: string
  readonly created: Date | null
}

/** What was read from a Django database. */
export interface DjangoData {
  readonly dialect: DialectName
  readonly users: readonly DjangoUser[]
  /** `null` when there is no `authtoken_token` table (DRF's token app not installed). */
  readonly tokens: readonly DjangoToken[] | null
}

/** The largest id kept: PostgreSQL's `serial` ends at 2^31-1, and its sequence must be able to move past every kept id. */
const MAX_SERIAL = 2 ** 31 - 2

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}

/** Django's id as a gatehouse id when it fits a `serial`, else `null`. */
function serialId(value: unknown): number | null {
  const n = typeof value === 'bigint' ? Number(value) : typeof value === 'string' && /^[0-9]{1,12}$/.test(value) ? Number(value) : value
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= MAX_SERIAL ? n : null
}

function refOf(value: unknown): string {
  return typeof value === 'number' || typeof value === 'bigint' || typeof value === 'string' ? String(value) : JSON.stringify(value) ?? ''
}

// Django's SQLite text: "2024-01-02 03:04:05.678901", naive UTC under USE_TZ (or with an offset).
const SQLITE_DATETIME = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})?$/

/** A date as Django stored it (a `Date` from PostgreSQL, text from SQLite), or `null`. */
export function parseDjangoDate(value: unknown): Date | null {
  let date: Date | null = null
  if (value instanceof Date) date = value
  else if (typeof value === 'string') {
    const match = SQLITE_DATETIME.exec(value.trim())
    if (match !== null) {
      const fraction = (match[3] ?? '').slice(0, 4)
      date = new Date(`${match[1]}T${match[2]}${fraction}${match[4] ?? 'Z'}`)
    }
  }
  return date !== null && !Number.isNaN(date.getTime()) ? date : null
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null
}

/** Turns raw rows into Django users and tokens (shared by both source engines). */
function toData(dialect: DialectName, userRows: readonly Record<string, unknown>[], tokenRows: readonly Record<string, unknown>[] | null): DjangoData {
  const users = userRows.map((row) => ({
    id: serialId(row['id']),
    ref: refOf(row['id']),
    // NFKC, as Django's AbstractBaseUser.normalize_username: a name stored un-normalised
    // (by raw SQL) cannot come in beside its normal form (`ａｄｍｉｎ` is `admin`).
    username: (text(row['username']) ?? '').normalize('NFKC'),
    password: text(row['password']) ?? '',
    isActive: row['is_active'] === undefined ? true : toFlag(row['is_active']),
    isStaff: toFlag(row['is_staff']),
    isSuperuser: toFlag(row['is_superuser']),
    dateJoined: parseDjangoDate(row['date_joined']),
  }))
  const tokens =
    tokenRows === null
      ? null
      : tokenRows.map((row) => ({ key: text(row['key']) ?? '', userRef: refOf(row['user_id']), created: parseDjangoDate(row['created']) }))
  return { dialect, users, tokens }
}

/** The columns of `auth_user` read when present (`id`, `username`, `password` must be). */
const USER_COLUMNS = ['id', 'username', 'password', 'is_active', 'is_staff', 'is_superuser', 'date_joined'] as const

function userSelect(columns: ReadonlySet<string>): string {
  for (const required of ['id', 'username', 'password']) {
    if (!columns.has(required)) throw new DjangoImportError(`the Django table auth_user has no ${required} column`)
  }
  return `select ${USER_COLUMNS.filter((c) => columns.has(c)).map(quoteIdent).join(', ')} from auth_user order by id`
}

const NOT_DJANGO = 'the --from database has no auth_user table: is it a Django database (after manage.py migrate)?'

async function readSqlite(path: string): Promise<DjangoData> {
  if (path === ':memory:') throw new DjangoImportError('--from must name a SQLite file, not :memory:')
  const { default: SQLite } = await import('better-sqlite3')
  let db: InstanceType<typeof SQLite>
  try {
    db = new SQLite(path, { readonly: true, fileMustExist: true })
  } catch (error) {
    throw new DjangoImportError(`cannot open the --from SQLite database ${path}: ${(error as Error).message}`)
  }
  try {
    const read = db.transaction(() => {
      const tables = new Set((db.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]).map((t) => t.name))
      if (!tables.has('auth_user')) throw new DjangoImportError(NOT_DJANGO)
      const columns = new Set((db.prepare('pragma table_info(auth_user)').all() as { name: string }[]).map((c) => c.name))
      const users = db.prepare(userSelect(columns)).all() as Record<string, unknown>[]
      const tokens = tables.has('authtoken_token')
        ? (db.prepare('select "key", user_id, created from authtoken_token order by "key"').all() as Record<string, unknown>[])
        : null
      return toData('sqlite', users, tokens)
    })
    return read()
  } catch (error) {
    if (error instanceof DjangoImportError) throw error
    // "file is not a database" and the like.
    throw new DjangoImportError(`cannot read the --from SQLite database ${path}: ${(error as Error).message}`)
  } finally {
    db.close()
  }
}

async function readPostgres(url: string): Promise<DjangoData> {
  const pg = await import('pg')
  const client = new pg.default.Client({ connectionString: url, connectionTimeoutMillis: 10_000 })
  try {
    await client.connect()
  } catch (error) {
    throw new DjangoImportError(`cannot connect to the --from database ${redactUrl(url)}: ${(error as Error).message}`)
  }
  // Types as node-postgres gives them by default: bigint ids come as text, which serialId parses.
  try {
    await client.query('begin isolation level repeatable read read only')
    const present = await client.query<{ users: boolean; tokens: boolean }>(
      "select to_regclass('auth_user') is not null as users, to_regclass('authtoken_token') is not null as tokens",
    )
    const found = present.rows[0]
    if (found?.users !== true) throw new DjangoImportError(NOT_DJANGO)
    const columns = await client.query<{ name: string }>(
      "select attname as name from pg_attribute where attrelid = to_regclass('auth_user') and attnum > 0 and not attisdropped",
    )
    const users = await client.query<Record<string, unknown>>(userSelect(new Set(columns.rows.map((c) => c.name))))
    const tokens = found.tokens ? (await client.query<Record<string, unknown>>('select "key", user_id, created from authtoken_token order by "key"')).rows : null
    await client.query('commit')
    return toData('postgres', users.rows, tokens)
  } finally {
    await client.end()
  }
}

/**
 * Reads the users and tokens of the Django database at `url` (`sqlite:<path>`,
 * `file:<path>` or `postgres://…`), read-only.
 *
 * @throws DjangoImportError when it cannot be read or has no `auth_user` table.
 */
export async function readDjangoDatabase(url: string): Promise<DjangoData> {
  if (url.trim() === '') throw new DjangoImportError('--from needs a database URL: sqlite:<path> or postgres://…')
  let target
  try {
    target = parseDatabaseUrl(url)
  } catch (error) {
    throw new DjangoImportError(`--from: ${(error as Error).message.replace(/^DATABASE_URL/, 'the URL')}`)
  }
  return target.dialect === 'sqlite' ? readSqlite(target.path) : readPostgres(target.url)
}

