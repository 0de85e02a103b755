import { PostgresAdapter, sql, type Kysely } from 'kysely'

/**
 * One migration: `up` applies it, `down` (optional) undoes it. The same shape as Kysely's own
 * `Migration`, so a migration written for Kysely's `Migrator` runs here too, and these run there.
 */
export interface Migration {
  /** Applies the migration. The database is untyped: migrations create the schema. */
  up(db: Kysely<unknown>): Promise<void>
  /** Undoes it. */
  down?(db: Kysely<unknown>): Promise<void>
}

/** What happened to one migration in a `migrate` run. */
export interface MigrationResult {
  /** The migration's name (its key in the migrations record). */
  readonly migrationName: string
  /** `migrate` only moves up. */
  readonly direction: 'Up' | 'Down'
  /** `NotExecuted`: a migration before it failed, so it was not tried. */
  readonly status: 'Success' | 'Error' | 'NotExecuted'
}

/** What `migrate` did: one result per migration it ran (none when the database was up to date). */
export interface MigrationResultSet {
  /** Never set on a value `migrate` returns: it throws instead. */
  readonly error?: unknown
  readonly results?: readonly MigrationResult[]
}

/** Kysely's `MIGRATION_LOCK_ID`: the one row of the lock table. */
const LOCK_ROW_ID = 'migration_lock'

/**
 * The advisory lock key of Kysely's `PostgresAdapter`: taken here as a transaction lock, it
 * still excludes a Kysely `Migrator` holding it as a session lock (one lock space).
 */
const POSTGRES_LOCK_KEY = '3853314791062309107'

/** A row of the migration table, as Kysely's `Migrator` writes it. */
interface MigrationRow {
  name: string
  timestamp: string
}

interface LockRow {
  id: string
  is_locked: number
}

/** A failure inside the locked run, carrying the results so far. */
class MigrationRunError extends Error {
  constructor(readonly resultSet: MigrationResultSet) {
    super('migration failed')
  }
}

/**
 * Applies every pending migration of `migrations` in name order, tracked in `tableName` (and
 * `${tableName}_lock`) in exactly the format of Kysely's `Migrator`, so a database migrated by
 * an earlier gatehouse (which used `Migrator`) or by Kysely itself continues where it stopped.
 *
 * gatehouse runs its migrations itself because Kysely 0.29 moved `Migrator` from `kysely` to
 * `kysely/migration`: a static import of either breaks on the other version, and a dynamic one
 * defeats bundlers. What it needs of Kysely is public on both 0.28 and 0.29: the dialect
 * adapter's migration lock (SQLite's single connection; on PostgreSQL the same advisory lock,
 * taken as a transaction lock so that it works through a transaction pooler) and
 * `supportsTransactionalDdl` (all pending migrations in one transaction where the database can).
 * `serverTimeoutMs`: PostgreSQL's `statement_timeout` inside the migrations' transaction (`SET LOCAL`).
 */
export async function runMigrations(
  db: Kysely<unknown>,
  migrations: Readonly<Record<string, Migration>>,
  tableName: string,
  serverTimeoutMs?: number,
): Promise<MigrationResultSet> {
  const lockTable = `${tableName}_lock`
  const locks = db as unknown as Kysely<Record<string, LockRow>>
  await ensureTable(db, tableName, () =>
    db.schema
      .createTable(tableName)
      .ifNotExists()
      .addColumn('name', 'varchar(255)', (c) => c.notNull().primaryKey())
      .addColumn('timestamp', 'varchar(255)', (c) => c.notNull())
      .execute(),
  )
  await ensureTable(db, lockTable, () =>
    db.schema
      .createTable(lockTable)
      .ifNotExists()
      .addColumn('id', 'varchar(255)', (c) => c.notNull().primaryKey())
      .addColumn('is_locked', 'integer', (c) => c.notNull().defaultTo(0))
      .execute(),
  )
  const hasLockRow = async (): Promise<boolean> =>
    (await locks.selectFrom(lockTable).select('id').where('id', '=', LOCK_ROW_ID).executeTakeFirst()) !== undefined
  if (!(await hasLockRow())) {
    try {
      await locks.insertInto(lockTable).values({ id: LOCK_ROW_ID, is_locked: 0 }).execute()
    } catch (error) {
      // Another process inserted it first.
      if (!(await hasLockRow())) throw error
    }
  }

  const adapter = db.getExecutor().adapter
  const lockOptions = { lockTable, lockRowId: LOCK_ROW_ID }
  const run = (conn: Kysely<unknown>): Promise<MigrationResultSet> => migrateUp(conn, migrations, tableName)
  const withLock = async (conn: Kysely<unknown>, body: (conn: Kysely<unknown>) => Promise<MigrationResultSet>): Promise<MigrationResultSet> => {
    await adapter.acquireMigrationLock(conn, lockOptions)
    try {
      return await body(conn)
    } finally {
      await adapter.releaseMigrationLock(conn, lockOptions)
    }
  }
  try {
    if (adapter instanceof PostgresAdapter) {
      // A transaction-level lock, taken inside the migrations' transaction and released by its
      // end: a transaction pooler (PgBouncer) keeps a transaction on one server connection but
      // not a session, so Kysely's session lock would be taken on one server connection and
      // "released" on another, left held for the next run to wait on.
      const locked = async (trx: Kysely<unknown>): Promise<MigrationResultSet> => {
        // Before the lock, so waiting for another run's migrations is bounded by it too.
        if (serverTimeoutMs !== undefined) await sql`set local statement_timeout = ${sql.lit(serverTimeoutMs)}`.execute(trx)
        await sql`select pg_advisory_xact_lock(${sql.lit(POSTGRES_LOCK_KEY)}::bigint)`.execute(trx)
        return run(trx)
      }
      return await (db.isTransaction ? locked(db) : db.transaction().execute(locked))
    }
    if (db.isTransaction) {
      if (!adapter.supportsTransactionalDdl) throw new Error('this dialect has no transactional DDL: give migrate a database, not a transaction')
      return await withLock(db, run)
    }
    if (adapter.supportsTransactionalDdl) {
      return await db.connection().execute((conn) => withLock(conn, (locked) => locked.transaction().execute(run)))
    }
    return await db.connection().execute((conn) => withLock(conn, run))
  } catch (error) {
    if (error instanceof MigrationRunError) return error.resultSet
    return { error }
  }
}

/** Creates a table unless it exists; a concurrent creator's "already exists" error is not a failure. */
async function ensureTable(db: Kysely<unknown>, table: string, create: () => Promise<void>): Promise<void> {
  if (await tableExists(db, table)) return
  try {
    await create()
  } catch (error) {
    // On PostgreSQL `if not exists` still throws when another session creates it at the same moment.
    if (!(await tableExists(db, table))) throw error
  }
}

/**
 * Whether `table` exists: a query that reads no row of it. (Not `db.introspection`, which
 * lists every table and, on Kysely 0.28.0, prints a deprecation warning of its own.)
 * Never inside a transaction: on PostgreSQL a failed statement would abort it.
 */
export async function tableExists(db: Kysely<unknown>, table: string): Promise<boolean> {
  try {
    await sql`select 1 from ${sql.table(table)} where 1 = 0`.execute(db)
    return true
  } catch {
    return false
  }
}

/** Runs the pending migrations in order, recording each; throws a MigrationRunError at the first failure. */
async function migrateUp(db: Kysely<unknown>, migrations: Readonly<Record<string, Migration>>, tableName: string): Promise<MigrationResultSet> {
  const tables = db as unknown as Kysely<Record<string, MigrationRow>>
  const names = Object.keys(migrations).sort()
  const rows = await tables.selectFrom(tableName).select(['name', 'timestamp']).execute()
  let maxExecutedAt = 0
  const executedAt = (row: MigrationRow): number => {
    const at = new Date(row.timestamp).getTime()
    if (Number.isNaN(at)) throw new Error(`corrupted migrations: previously executed migration ${row.name} has an invalid timestamp ${row.timestamp}`)
    maxExecutedAt = Math.max(maxExecutedAt, at)
    return at
  }
  // Execution order, as Kysely reads it: by time, then by name.
  const executed = rows
    .map((row) => ({ name: row.name, at: executedAt(row) }))
    .sort((a, b) => a.at - b.at || a.name.localeCompare(b.name))
    .map((row) => row.name)
  for (const name of executed) {
    if (!names.includes(name)) throw new Error(`corrupted migrations: previously executed migration ${name} is missing`)
  }
  executed.forEach((name, index) => {
    if (names[index] !== name) {
      throw new Error(
        `corrupted migrations: expected previously executed migration ${name} to be at index ${index} but ${String(names[index])} was found in its place. New migrations must always have a name that comes alphabetically after the last executed migration.`,
      )
    }
  })
  const pending = names.slice(executed.length)
  const results: MigrationResult[] = pending.map((name) => ({ migrationName: name, direction: 'Up', status: 'NotExecuted' }))
  for (const [index, name] of pending.entries()) {
    const migration = migrations[name] as Migration
    try {
      await migration.up(db)
      // Strictly increasing, even when the clock is behind the last recorded run.
      maxExecutedAt = Math.max(Date.now(), maxExecutedAt + 1)
      await tables.insertInto(tableName).values({ name, timestamp: new Date(maxExecutedAt).toISOString() }).execute()
      results[index] = { migrationName: name, direction: 'Up', status: 'Success' }
    } catch (error) {
      results[index] = { migrationName: name, direction: 'Up', status: 'Error' }
      throw new MigrationRunError({ error, results })
    }
  }
  return { results }
}
