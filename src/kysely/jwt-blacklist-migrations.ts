import type { Kysely } from 'kysely'
import type { Migration } from './migration-runner.js'
import type { DialectName } from './dialect-name.js'

/**
 * The table of `KyselyJwtBlacklistStore`, `gatehouse_jwt_tokens`: one row per known refresh
 * token by `jti`, `blacklisted_at` set once revoked (simplejwt's two tables in one; the token
 * text itself is not kept). Run with its own tracking table:
 *
 * @example
 * await migrate(db, jwtBlacklistMigrations(dialect), 'gatehouse_jwt_migrations')
 */
export function jwtBlacklistMigrations(dialect: DialectName): Record<string, Migration> {
  const ts = dialect === 'postgres' ? 'timestamptz' : 'text'
  return {
    '0001_jwt_tokens': {
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema
          .createTable('gatehouse_jwt_tokens')
          .addColumn('jti', 'varchar(255)', (c) => c.primaryKey())
          .addColumn('user_id', 'varchar(255)')
          .addColumn('expires_at', ts, (c) => c.notNull())
          .addColumn('blacklisted_at', ts)
          .execute()
        await db.schema.createIndex('gatehouse_jwt_tokens_expires_at').on('gatehouse_jwt_tokens').column('expires_at').execute()
      },
      async down(db: Kysely<unknown>): Promise<void> {
        await db.schema.dropTable('gatehouse_jwt_tokens').execute()
      },
    },
    // simplejwt's OutstandingToken.created_at (the token's iat), for the admin pages; a user's tokens by user_id.
    '0002_jwt_tokens_created_at': {
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema.alterTable('gatehouse_jwt_tokens').addColumn('created_at', ts).execute()
        await db.schema.createIndex('gatehouse_jwt_tokens_user_id').on('gatehouse_jwt_tokens').column('user_id').execute()
      },
      async down(db: Kysely<unknown>): Promise<void> {
        await db.schema.dropIndex('gatehouse_jwt_tokens_user_id').execute()
        await db.schema.alterTable('gatehouse_jwt_tokens').dropColumn('created_at').execute()
      },
    },
  }
}
