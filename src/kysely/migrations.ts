import { Kysely, PostgresDialect, sql, type ColumnDefinitionBuilder } from 'kysely'
import type { DialectName } from './dialect-name.js'
import { guardedPoolOf } from './dialects.js'
import { runMigrations as applyMigrations, type Migration, type MigrationResultSet } from './migration-runner.js'
import { serverTimeoutFor } from './statement-timeout.js'
import { checkUserTable, type UserTable } from './user-table.js'

function timestampType(dialect: DialectName): 'timestamptz' | 'text' {
  return dialect === 'postgres' ? 'timestamptz' : 'text'
}

/** Options for `authMigrations`. */
export interface AuthMigrationOptions {
  /**
   * Bring your own users table (the `UserTable` your `KyselyUserStore` is given): gatehouse
   * then creates no `gatehouse_users`, and the `user_id` of its tokens and sessions takes
   * your id's type (`uuid` is `uuid` on PostgreSQL, `text` on SQLite) and points at your
   * table's id column. Choose before the first migration: the choice is baked into `0001_auth`.
   * @default none: gatehouse's own `gatehouse_users`
   */
  readonly users?: UserTable
  /**
   * Reference your table from `user_id` (`on delete cascade`, so deleting a user deletes
   * their token and sessions). Your table must then exist before these migrations run.
   * `false`: a plain column, for a table that lives elsewhere or is created later. Only
   * with `users`. @default true
   */
  readonly foreignKey?: boolean
}

function userIdType(dialect: DialectName, users: UserTable | undefined): 'integer' | 'bigint' | 'uuid' | 'text' {
  if (users === undefined || users.idType === 'integer') return 'integer'
  if (users.idType === 'bigint') return 'bigint'
  return dialect === 'postgres' ? 'uuid' : 'text'
}

/**
 * gatehouse's own tables: users, tokens (one per user), sessions, and named tokens (the
 * safer token mode, `0002_named_tokens`). Same code on SQLite and PostgreSQL. With
 * `options.users`, only the token and session tables, keyed to your users table.
 *
 * @throws ConfigurationError when `options.users` is malformed.
 */
export function authMigrations(dialect: DialectName, options: AuthMigrationOptions = {}): Record<string, Migration> {
  const ts = timestampType(dialect)
  const users = options.users === undefined ? undefined : checkUserTable(options.users, 'authMigrations option "users"')
  const idType = userIdType(dialect, users)
  const target = users === undefined ? 'gatehouse_users.id' : `${users.table}.${users.columns.id}`
  const references = users === undefined || options.foreignKey !== false
  const userColumn = (c: ColumnDefinitionBuilder): ColumnDefinitionBuilder =>
    references ? c.references(target).onDelete('cascade') : c
  return {
    '0001_auth': {
      async up(db: Kysely<unknown>): Promise<void> {
        if (users === undefined) {
          await db.schema
            .createTable('gatehouse_users')
            .addColumn('id', dialect === 'postgres' ? 'serial' : 'integer', (c) =>
              dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
            )
            .addColumn('username', 'varchar(150)', (c) => c.notNull().unique())
            .addColumn('password', 'varchar(255)', (c) => c.notNull())
            .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
            .addColumn('is_staff', 'integer', (c) => c.notNull().defaultTo(0))
            .addColumn('date_joined', ts, (c) => c.notNull())
            .execute()
        }
        await db.schema
          .createTable('gatehouse_tokens')
          .addColumn('key', 'varchar(40)', (c) => c.primaryKey())
          // Lookups go by SHA-256 of the key, so index timing says nothing about the key itself.
          .addColumn('key_digest', 'char(64)', (c) => c.notNull().unique())
          .addColumn('user_id', idType, (c) => userColumn(c.notNull().unique()))
          .addColumn('created', ts, (c) => c.notNull())
          .execute()
        await db.schema
          .createTable('gatehouse_sessions')
          .addColumn('session_key', 'varchar(64)', (c) => c.primaryKey())
          .addColumn('user_id', idType, userColumn)
          .addColumn('data', 'text', (c) => c.notNull())
          .addColumn('expires_at', ts, (c) => c.notNull())
          .execute()
        await db.schema.createIndex('gatehouse_sessions_expires_at').on('gatehouse_sessions').column('expires_at').execute()
      },
      async down(db: Kysely<unknown>): Promise<void> {
        await db.schema.dropTable('gatehouse_sessions').execute()
        await db.schema.dropTable('gatehouse_tokens').execute()
        if (users === undefined) await db.schema.dropTable('gatehouse_users').execute()
      },
    },
    // The safer token mode (KyselyNamedTokenStore): many named tokens per user, kept as digests only.
    '0002_named_tokens': {
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema
          .createTable('gatehouse_named_tokens')
          .addColumn('id', dialect === 'postgres' ? 'serial' : 'integer', (c) =>
            dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
          )
          .addColumn('user_id', idType, (c) => userColumn(c.notNull()))
          .addColumn('name', 'varchar(100)', (c) => c.notNull())
          .addColumn('display_prefix', 'varchar(32)', (c) => c.notNull())
          // Hex SHA-256 of the whole token: a leaked table holds no usable token.
          .addColumn('digest', 'char(64)', (c) => c.notNull().unique())
          .addColumn('created', ts, (c) => c.notNull())
          .addColumn('expires_at', ts)
          .addColumn('last_used_at', ts)
          .execute()
        await db.schema.createIndex('gatehouse_named_tokens_user_id').on('gatehouse_named_tokens').columns(['user_id', 'id']).execute()
      },
      async down(db: Kysely<unknown>): Promise<void> {
        await db.schema.dropTable('gatehouse_named_tokens').execute()
      },
    },
    // Django's auth_user.last_login, for updateLastLogin (simplejwt's UPDATE_LAST_LOGIN). A mapped users table is yours to change.
    '0003_users_last_login': {
      async up(db: Kysely<unknown>): Promise<void> {
        if (users === undefined) await db.schema.alterTable('gatehouse_users').addColumn('last_login', ts).execute()
      },
      async down(db: Kysely<unknown>): Promise<void> {
        if (users === undefined) await db.schema.alterTable('gatehouse_users').dropColumn('last_login').execute()
      },
    },
    // Django's auth_user.is_superuser: who may act on staff accounts in the admin pages. A mapped users table is yours to change.
    '0004_users_is_superuser': {
      async up(db: Kysely<unknown>): Promise<void> {
        if (users === undefined) await db.schema.alterTable('gatehouse_users').addColumn('is_superuser', 'integer', (c) => c.notNull().defaultTo(0)).execute()
      },
      async down(db: Kysely<unknown>): Promise<void> {
        if (users === undefined) await db.schema.alterTable('gatehouse_users').dropColumn('is_superuser').execute()
      },
    },
  }
}

/** How long one migration statement may run on PostgreSQL (10 minutes). */
const MIGRATION_STATEMENT_TIMEOUT_MS = 600_000

/**
 * Runs migrations to the latest version, tracked in `tableName` (the table format of Kysely's
 * `Migrator`; works with Kysely 0.28 and 0.29). Throws with the failing migration's name when
 * one fails (nothing half-applied on PostgreSQL: the pending migrations run in one transaction).
 * On a database opened with `openDatabase`, statements may run for up to 10 minutes each, not the 2 s a request gets.
 */
export async function migrate<DB>(
  db: Kysely<DB>,
  migrations: Record<string, Migration>,
  tableName = 'gatehouse_migrations',
): Promise<MigrationResultSet> {
  // A migration may rewrite a big table: on PostgreSQL it runs on the same pool with long
  // statements allowed, not under a request's timeout (and without withStatementTimeout,
  // whose AsyncLocalStorage would turn on async hooks for the rest of the process).
  const pool = db.isTransaction ? undefined : guardedPoolOf(db)
  const migrationDb = pool === undefined
    ? (db as unknown as Kysely<unknown>)
    : new Kysely<unknown>({ dialect: new PostgresDialect({ pool: pool.withStatementTimeout(MIGRATION_STATEMENT_TIMEOUT_MS) }), plugins: [...db.getExecutor().plugins] })
  try {
    // The server's side of the long wait, for the migrations' transaction only (SET LOCAL).
    return await runMigrations(migrationDb, migrations, tableName, pool === undefined ? undefined : serverTimeoutFor(MIGRATION_STATEMENT_TIMEOUT_MS))
  } finally {
    if (migrationDb !== (db as unknown)) await migrationDb.destroy()
  }
}

async function runMigrations(db: Kysely<unknown>, migrations: Record<string, Migration>, tableName: string, serverTimeoutMs: number | undefined): Promise<MigrationResultSet> {
  const result = await applyMigrations(db, migrations, tableName, serverTimeoutMs)
  if (result.error !== undefined) {
    const failed = result.results?.find((r) => r.status === 'Error')
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${String(result.error)}`, {
      cause: result.error,
    })
  }
  return result
}

/** Resets PostgreSQL's id sequence after rows were inserted with explicit ids. No-op on SQLite. Any `Kysely<DB>` or transaction will do. */
export async function syncSerial(db: Pick<Kysely<unknown>, 'getExecutor'>, dialect: DialectName, table: string, column = 'id'): Promise<void> {
  if (dialect !== 'postgres') return
  await sql`select setval(pg_get_serial_sequence(${table}, ${column}), coalesce((select max(${sql.ref(column)}) from ${sql.table(table)}), 0) + 1, false)`.execute(db)
}
