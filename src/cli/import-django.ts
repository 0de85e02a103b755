/**
 * `gatehouse import-django`: copies Django's users (`auth_user`) and DRF's tokens
 * (`authtoken_token`) into gatehouse's own tables, so an API moved off Django keeps its
 * accounts, passwords (Django's PBKDF2 hashes verify, and are rehashed at the first login)
 * and token keys. Idempotent: a second run writes nothing.
 *
 * The Django database is only read (a read-only SQLite connection, a read-only PostgreSQL
 * transaction); everything is read before the target is written, so source and target may
 * be the same database. Nothing secret (hashes, keys, URL passwords) is ever printed.
 */
import type { Kysely, Transaction } from 'kysely'
import { isUsableHash } from '../crypto/passwords.js'
import { parseDatabaseUrl, redactUrl, type Database, type DialectName } from '../kysely/database.js'
import { tokenRow } from '../kysely/kysely-token-store.js'
import { syncSerial } from '../kysely/migrations.js'
import { toDate, toFlag, type AuthDatabase } from '../kysely/schema.js'
import { KyselyUserStore } from '../kysely/kysely-user-store.js'
import { runUserCreatedHook, type UserCreatedHook } from '../stores/user-created-hook.js'

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

/** How `importDjango` treats users and tokens already in gatehouse's tables. */
export interface ImportDjangoOptions {
  /**
   * Refresh users already in gatehouse (matched by username) from Django: active and staff
   * flags, date joined, token key (attached when they have none: each such user is named in
   * the report, since the key then logs in to their account), and the password *only* while gatehouse's copy is still
   * not an scrypt hash (a password set or rehashed by gatehouse is never replaced).
   * @default false: such users and their tokens are left as they are.
   */
  readonly update?: boolean
  /** Everything is done in the transaction, then rolled back. @default false */
  readonly dryRun?: boolean
  /** Make Django superusers staff (gatehouse has no superuser flag). @default false: `is_staff` as it is */
  readonly superusersAsStaff?: boolean
  /**
   * Called for every user the import created, once the import is committed (never in a dry
   * run), as a store's `onUserCreated`. A failure is reported (`hookFailures`, a note) and the
   * other users' calls still happen. @default none
   */
  readonly onUserCreated?: UserCreatedHook | undefined
}

/** Counts of one kind of row. */
export interface ImportCounts {
  created: number
  updated: number
  /** Already in gatehouse and equal, or left as they were (without `update`). */
  unchanged: number
  skipped: number
}

/** What `importDjango` did (or, in a dry run, would have done). */
export interface ImportDjangoReport {
  readonly sourceDialect: DialectName
  readonly sourceUsers: number
  /** `null`: the Django database has no `authtoken_token` table. */
  readonly sourceTokens: number | null
  readonly users: ImportCounts
  readonly tokens: ImportCounts
  readonly dryRun: boolean
  /** Lines worth telling: skipped rows, renumbered users, hashes gatehouse cannot check. Nothing secret. */
  readonly notes: string[]
  /** gatehouse ids of present users whose flags, password or token `update` changed (caches should drop them). */
  readonly changedUserIds: number[]
  /** How many `onUserCreated` calls failed (each named in `notes`). */
  readonly hookFailures: number
}

const MAX_USERNAME = 150
const MAX_PASSWORD = 255
const MAX_KEY = 40
/** The largest id kept: PostgreSQL's `serial` ends at 2^31-1, and its sequence must be able to move past every kept id. */
const MAX_SERIAL = 2 ** 31 - 2
/** Rows per INSERT statement (well under SQLite's and PostgreSQL's parameter limits). */
const CHUNK = 200

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
    username: text(row['username']) ?? '',
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

/** A username as printed: plain when it is plain, else JSON-quoted (no control characters reach the terminal). */
function shown(username: string): string {
  return /^[\w.@+-]+$/.test(username) ? username : JSON.stringify(username)
}

/** The hasher of a Django hash, for reporting (never any part of the hash itself). */
function hasher(password: string): string {
  if (password === '' || password.startsWith('!')) return 'unusable'
  const name = password.slice(0, password.indexOf('$'))
  return /^[a-z0-9_]{1,40}$/.test(name) ? name : 'unknown'
}

/** Why a Django user cannot go into gatehouse's table as it is, or `null`. */
function unfit(user: DjangoUser): string | null {
  // Lengths in characters (code points), as varchar counts them.
  if (user.username === '' || [...user.username].length > MAX_USERNAME || user.username.includes('\0')) {
    return `its username is empty, longer than ${MAX_USERNAME} characters or contains NUL`
  }
  if ([...user.password].length > MAX_PASSWORD || user.password.includes('\0')) return `its password field is longer than ${MAX_PASSWORD} characters or contains NUL`
  return null
}

function listed(names: readonly string[], max = 20): string {
  const head = names.slice(0, max).join(', ')
  return names.length > max ? `${head}, … (${names.length - max} more)` : head
}

interface PresentUser {
  id: number
  password: string
  is_active: number
  is_staff: number
  date_joined: Date | string
}

/** Rolls the transaction back at the end of a dry run. */
class DryRunRollback extends Error {}

/**
 * Writes `source` into gatehouse's tables of `database` (migrated), in one transaction:
 * new users keep Django's id when it is free, their password hash as it is (an empty one
 * becomes unusable, `!`), active and staff flags, date joined; tokens keep their key.
 * Users already present (same username) are left alone unless `options.update`, and so are
 * their tokens: a Django token is attached to (or replaces the token of) a user gatehouse
 * already had only with `options.update`, and every such user is named in the notes.
 */
export async function importDjango(database: Database<AuthDatabase>, source: DjangoData, options: ImportDjangoOptions = {}): Promise<ImportDjangoReport> {
  const users: ImportCounts = { created: 0, updated: 0, unchanged: 0, skipped: 0 }
  const tokens: ImportCounts = { created: 0, updated: 0, unchanged: 0, skipped: 0 }
  const notes: string[] = []
  const changed = new Set<number>()
  const createdIds: number[] = []
  const run = async (trx: Transaction<AuthDatabase>): Promise<void> => {
    const present = new Map<string, PresentUser>()
    // gatehouse id → username of the users that were there before this import.
    const existingIds = new Map<number, string>()
    const takenIds = new Set<number>()
    for (const row of await trx.selectFrom('gatehouse_users').select(['id', 'username', 'password', 'is_active', 'is_staff', 'date_joined']).execute()) {
      present.set(row.username, row)
      takenIds.add(Number(row.id))
    }
    const staffOf = (user: DjangoUser): boolean => user.isStaff || (options.superusersAsStaff === true && user.isSuperuser)
    const passwordOf = (user: DjangoUser): string => (user.password === '' ? '!' : user.password)

    // Django id (as text) → gatehouse id, for the tokens.
    const idOf = new Map<string, number>()
    const seen = new Set<string>()
    const skippedLines: string[] = []
    const renumbered: DjangoUser[] = []
    const keepIds: DjangoUser[] = []
    const createdNames = new Set<string>()
    const uncheckable = new Map<string, string[]>()
    let unusable = 0
    let differing = 0
    for (const user of source.users) {
      const why = unfit(user) ?? (seen.has(user.username) ? 'its username appears twice' : null)
      if (why !== null) {
        users.skipped++
        skippedLines.push(`skipped Django user id ${user.ref}: ${why}`)
        continue
      }
      seen.add(user.username)
      const existing = present.get(user.username)
      if (existing === undefined) {
        if (user.id !== null && !takenIds.has(user.id)) {
          keepIds.push(user)
          takenIds.add(user.id)
        } else renumbered.push(user)
        createdNames.add(user.username)
        const kind = hasher(user.password)
        if (kind === 'unusable') unusable++
        else if (!isUsableHash(user.password)) uncheckable.set(kind, [...(uncheckable.get(kind) ?? []), user.username])
        continue
      }
      const id = Number(existing.id)
      idOf.set(user.ref, id)
      existingIds.set(id, user.username)
      const changes: Partial<{ password: string; is_active: number; is_staff: number; date_joined: string }> = {}
      if (Number(existing.is_active) !== (user.isActive ? 1 : 0)) changes.is_active = user.isActive ? 1 : 0
      if (Number(existing.is_staff) !== (staffOf(user) ? 1 : 0)) changes.is_staff = staffOf(user) ? 1 : 0
      if (user.dateJoined !== null && toDate(existing.date_joined).getTime() !== user.dateJoined.getTime()) changes.date_joined = user.dateJoined.toISOString()
      // A password gatehouse set or rehashed (scrypt) is newer than Django's: never replaced.
      if (!existing.password.startsWith('scrypt$') && existing.password !== passwordOf(user)) changes.password = passwordOf(user)
      if (Object.keys(changes).length === 0) {
        users.unchanged++
      } else if (options.update === true) {
        await trx.updateTable('gatehouse_users').set(changes).where('id', '=', id).execute()
        users.updated++
        changed.add(id)
      } else {
        users.unchanged++
        differing++
      }
    }
    const rowOf = (user: DjangoUser, withId: boolean): Record<string, unknown> => ({
      ...(withId ? { id: user.id } : {}),
      username: user.username,
      password: passwordOf(user),
      is_active: user.isActive ? 1 : 0,
      is_staff: staffOf(user) ? 1 : 0,
      date_joined: (user.dateJoined ?? new Date()).toISOString(),
    })
    const loose = trx as unknown as Kysely<Record<string, Record<string, unknown>>>
    for (let i = 0; i < keepIds.length; i += CHUNK) {
      await loose.insertInto('gatehouse_users').values(keepIds.slice(i, i + CHUNK).map((u) => rowOf(u, true))).execute()
    }
    // Explicit ids went in: PostgreSQL's sequence must move past them before any new id is drawn.
    if (keepIds.length > 0) await syncSerial(trx, database.dialect, 'gatehouse_users')
    for (const user of keepIds) idOf.set(user.ref, user.id as number)
    for (const user of renumbered) {
      const row = await loose.insertInto('gatehouse_users').values(rowOf(user, false)).returning('id').executeTakeFirstOrThrow()
      idOf.set(user.ref, Number(row['id']))
      notes.push(`user ${shown(user.username)}: Django id ${user.ref} is taken in gatehouse (or is not a number it can hold), imported as id ${String(row['id'])}`)
    }
    users.created = keepIds.length + renumbered.length
    createdIds.push(...keepIds.map((user) => idOf.get(user.ref) as number), ...renumbered.map((user) => idOf.get(user.ref) as number))

    if (source.tokens !== null) {
      const tokenOfUser = new Map<number, string>()
      const userOfKey = new Map<string, number>()
      for (const row of await trx.selectFrom('gatehouse_tokens').select(['key', 'user_id']).execute()) {
        tokenOfUser.set(Number(row.user_id), row.key)
        userOfKey.set(row.key, Number(row.user_id))
      }
      let differingTokens = 0
      // Tokens of users gatehouse already had: attached or replaced only with --update, and always named.
      const notAttached: string[] = []
      const attached: string[] = []
      const replaced: string[] = []
      const newTokens: ReturnType<typeof tokenRow<number>>[] = []
      for (const token of source.tokens) {
        const userId = idOf.get(token.userRef)
        if (userId === undefined) {
          tokens.skipped++
          skippedLines.push(`skipped the token of Django user id ${token.userRef}: that user was not imported`)
          continue
        }
        if (token.key === '' || token.key.length > MAX_KEY || token.key.includes('\0')) {
          tokens.skipped++
          skippedLines.push(`skipped the token of Django user id ${token.userRef}: its key is empty, longer than ${MAX_KEY} characters or contains NUL`)
          continue
        }
        const current = tokenOfUser.get(userId)
        if (current === token.key) {
          tokens.unchanged++
          continue
        }
        const owner = userOfKey.get(token.key)
        if (owner !== undefined && owner !== userId) {
          tokens.skipped++
          skippedLines.push(`skipped the token of Django user id ${token.userRef}: gatehouse has the same key for another user`)
          continue
        }
        const row = tokenRow(token.key, userId, token.created ?? new Date())
        const existingName = existingIds.get(userId)
        if (current === undefined && existingName !== undefined && options.update !== true) {
          // A key that would log in to an account gatehouse already had: never without --update.
          tokens.unchanged++
          notAttached.push(existingName)
        } else if (current === undefined) {
          if (existingName !== undefined) {
            attached.push(existingName)
            changed.add(userId)
          }
          newTokens.push(row)
          tokenOfUser.set(userId, token.key)
          userOfKey.set(token.key, userId)
        } else if (options.update === true) {
          await trx.deleteFrom('gatehouse_tokens').where('user_id', '=', userId).execute()
          await trx.insertInto('gatehouse_tokens').values(row).execute()
          userOfKey.delete(current)
          tokenOfUser.set(userId, token.key)
          userOfKey.set(token.key, userId)
          tokens.updated++
          changed.add(userId)
          replaced.push(existingName ?? String(userId))
        } else {
          tokens.unchanged++
          differingTokens++
        }
      }
      for (let i = 0; i < newTokens.length; i += CHUNK) {
        await trx.insertInto('gatehouse_tokens').values(newTokens.slice(i, i + CHUNK)).execute()
      }
      tokens.created = newTokens.length
      const would = options.dryRun === true ? 'would be ' : ''
      const countUsers = (names: readonly string[]): string => `${names.length} user${names.length === 1 ? '' : 's'}`
      if (notAttached.length > 0) {
        notes.push(`${countUsers(notAttached)} already in gatehouse ${notAttached.length === 1 ? 'has a Django token' : 'have Django tokens'} that ${notAttached.length === 1 ? 'was' : 'were'} not attached (--update attaches ${notAttached.length === 1 ? 'it' : 'them'}): ${listed(notAttached.map(shown), Infinity)}`)
      }
      if (attached.length > 0) {
        notes.push(`Django tokens ${would}attached to ${countUsers(attached)} already in gatehouse (their accounts ${options.dryRun === true ? 'would' : 'now'} accept those keys): ${listed(attached.map(shown), Infinity)}`)
      }
      if (replaced.length > 0) {
        notes.push(`gatehouse tokens ${would}replaced by the Django ones for ${countUsers(replaced)}: ${listed(replaced.map(shown), Infinity)}`)
      }
      if (differingTokens > 0) {
        notes.push(`${differingTokens} user${differingTokens === 1 ? ' has' : 's have'} a gatehouse token other than their Django one: kept (--update replaces it with Django's)`)
      }
    }

    notes.push(...skippedLines.slice(0, 50))
    if (skippedLines.length > 50) notes.push(`… and ${skippedLines.length - 50} more skipped rows`)
    if (differing > 0) {
      notes.push(`${differing} user${differing === 1 ? '' : 's'} already in gatehouse differ${differing === 1 ? 's' : ''} from Django (flags, date joined, or a password gatehouse never set): kept (--update refreshes them)`)
    }
    for (const [kind, names] of uncheckable) {
      notes.push(
        `${names.length} user${names.length === 1 ? ' has a password hash' : 's have password hashes'} gatehouse cannot check (${kind}): copied as ${names.length === 1 ? 'it is' : 'they are'}; no password logs them in until one is set (gatehouse changepassword <username>): ${listed(names.map(shown))}`,
      )
    }
    if (unusable > 0) notes.push(`${unusable} imported user${unusable === 1 ? ' has' : 's have'} no usable password, as in Django (token or other schemes only)`)
    const superusers = source.users.filter((u) => u.isSuperuser && !u.isStaff && createdNames.has(u.username))
    if (superusers.length > 0 && options.superusersAsStaff !== true) {
      notes.push(`${superusers.length} Django superuser${superusers.length === 1 ? ' is' : 's are'} not staff and imported as not staff (gatehouse has no superuser flag; --superusers-as-staff makes them staff)`)
    }
    if (options.dryRun === true) throw new DryRunRollback()
  }
  try {
    await database.db.transaction().execute(run)
  } catch (error) {
    if (!(error instanceof DryRunRollback)) throw error
  }
  let hookFailures = 0
  if (options.onUserCreated !== undefined && options.dryRun !== true) {
    // After the commit, as for a store's create: the hook sees the rows (and may write its own).
    const store = new KyselyUserStore({ db: database.db })
    for (const id of createdIds) {
      const user = await store.findById(id)
      if (user === null) continue
      try {
        await runUserCreatedHook(options.onUserCreated, user)
      } catch (error) {
        hookFailures++
        if (hookFailures <= 50) notes.push(`onUserCreated failed for user ${shown(user.username)}: ${error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error)}`)
      }
    }
    if (hookFailures > 50) notes.push(`… and ${hookFailures - 50} more onUserCreated failures`)
  }
  return {
    sourceDialect: source.dialect,
    sourceUsers: source.users.length,
    sourceTokens: source.tokens === null ? null : source.tokens.length,
    users,
    tokens,
    dryRun: options.dryRun === true,
    notes,
    changedUserIds: options.dryRun === true ? [] : [...changed],
    hookFailures,
  }
}

function countsLine(what: string, counts: ImportCounts, dryRun: boolean): string {
  const verb = dryRun ? 'would be ' : ''
  return `${what}: ${counts.created} ${verb}created, ${counts.updated} ${verb}updated, ${counts.unchanged} unchanged, ${counts.skipped} skipped`
}

/** The lines `gatehouse import-django` prints for a report. */
export function formatImportReport(report: ImportDjangoReport): string[] {
  const tokens = report.sourceTokens === null ? 'no authtoken_token table' : `${report.sourceTokens} token${report.sourceTokens === 1 ? '' : 's'}`
  const lines = [`Django database (${report.sourceDialect}): ${report.sourceUsers} user${report.sourceUsers === 1 ? '' : 's'}, ${tokens}`]
  lines.push(countsLine('Users', report.users, report.dryRun))
  if (report.sourceTokens !== null) lines.push(countsLine('Tokens', report.tokens, report.dryRun))
  lines.push(...report.notes)
  if (report.dryRun) lines.push('Dry run: nothing was written')
  return lines
}
