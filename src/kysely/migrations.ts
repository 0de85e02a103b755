import { Migrator, sql, type Kysely, type Migration, type MigrationResultSet } from 'kysely'
import type { DialectName } from './database.js'

function timestampType(dialect: DialectName): 'timestamptz' | 'text' {
  return dialect === 'postgres' ? 'timestamptz' : 'text'
}

/** gatehouse's own tables: users, tokens (one per user), sessions. Same code on SQLite and PostgreSQL. */
export function authMigrations(dialect: DialectName): Record<string, Migration> {
  const ts = timestampType(dialect)
  return {
    '0001_auth': {
      async up(db: Kysely<unknown>): Promise<void> {
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
        await db.schema
          .createTable('gatehouse_tokens')
          .addColumn('key', 'varchar(40)', (c) => c.primaryKey())
          // Lookups go by SHA-256 of the key, so index timing says nothing about the key itself.
          .addColumn('key_digest', 'char(64)', (c) => c.notNull().unique())
          .addColumn('user_id', 'integer', (c) =>
            c.notNull().unique().references('gatehouse_users.id').onDelete('cascade'),
          )
          .addColumn('created', ts, (c) => c.notNull())
          .execute()
        await db.schema
          .createTable('gatehouse_sessions')
          .addColumn('session_key', 'varchar(64)', (c) => c.primaryKey())
          .addColumn('user_id', 'integer', (c) => c.references('gatehouse_users.id').onDelete('cascade'))
          .addColumn('data', 'text', (c) => c.notNull())
          .addColumn('expires_at', ts, (c) => c.notNull())
          .execute()
        await db.schema.createIndex('gatehouse_sessions_expires_at').on('gatehouse_sessions').column('expires_at').execute()
      },
      async down(db: Kysely<unknown>): Promise<void> {
        await db.schema.dropTable('gatehouse_sessions').execute()
        await db.schema.dropTable('gatehouse_tokens').execute()
        await db.schema.dropTable('gatehouse_users').execute()
      },
    },
  }
}

/**
 * Runs migrations to the latest version, tracked in `tableName`. Throws with the
 * failing migration's name when one fails (nothing half-applied: each runs in a transaction).
 */
export async function migrate<DB>(
  db: Kysely<DB>,
  migrations: Record<string, Migration>,
  tableName = 'gatehouse_migrations',
): Promise<MigrationResultSet> {
  const migrator = new Migrator({
    // Migrations create the schema, so they see the database untyped.
    db: db as unknown as Kysely<unknown>,
    provider: { getMigrations: async () => migrations },
    migrationTableName: tableName,
    migrationLockTableName: `${tableName}_lock`,
  })
  const result = await migrator.migrateToLatest()
  if (result.error !== undefined) {
    const failed = result.results?.find((r) => r.status === 'Error')
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${String(result.error)}`, {
      cause: result.error,
    })
  }
  return result
}

/** Resets PostgreSQL's id sequence after rows were inserted with explicit ids. No-op on SQLite. */
export async function syncSerial(db: Kysely<unknown>, dialect: DialectName, table: string, column = 'id'): Promise<void> {
  if (dialect !== 'postgres') return
  await sql`select setval(pg_get_serial_sequence(${table}, ${column}), coalesce((select max(${sql.ref(column)}) from ${sql.table(table)}), 0) + 1, false)`.execute(db)
}
