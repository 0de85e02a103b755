import type { ColumnType, Generated, Kysely } from 'kysely'
import type { AuthDatabase, JwtBlacklistDatabase, Timestamp } from 'drf-gatehouse/kysely'
import type { DialectName, Migration } from 'drf-gatehouse/kysely'

/** The reference API's own table. */
export interface ArticlesTable {
  id: Generated<number>
  title: string
  author_id: number
  score: number
  created: Timestamp
}

/** Secrets the reference API keeps in its database (the cursor-signing key). */
export interface SecretsTable {
  name: string
  value: string
}

export interface ReferenceDatabase extends AuthDatabase, JwtBlacklistDatabase {
  articles: ArticlesTable
  reference_secrets: SecretsTable
}

/** Article migrations, tracked apart from gatehouse's own. Index on every ordering the routes page by. */
export function articleMigrations(dialect: DialectName): Record<string, Migration> {
  const ts = dialect === 'postgres' ? 'timestamptz' : 'text'
  return {
    '0001_articles': {
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema
          .createTable('articles')
          .addColumn('id', dialect === 'postgres' ? 'serial' : 'integer', (c) =>
            dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
          )
          .addColumn('title', 'varchar(200)', (c) => c.notNull())
          .addColumn('author_id', 'integer', (c) => c.notNull().references('gatehouse_users.id'))
          .addColumn('score', 'integer', (c) => c.notNull())
          .addColumn('created', ts, (c) => c.notNull())
          .execute()
        await db.schema.createIndex('articles_created_id').on('articles').columns(['created', 'id']).execute()
        await db.schema.createIndex('articles_score_id').on('articles').columns(['score', 'id']).execute()
        await db.schema.createIndex('articles_author_id').on('articles').columns(['author_id', 'id']).execute()
      },
      async down(db: Kysely<unknown>): Promise<void> {
        await db.schema.dropTable('articles').execute()
      },
    },
    // The signing secret made on first start when GATEHOUSE_SECRET is unset, shared by every instance.
    '0002_secrets': {
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema
          .createTable('reference_secrets')
          .addColumn('name', 'text', (c) => c.primaryKey())
          .addColumn('value', 'text', (c) => c.notNull())
          .execute()
      },
      async down(db: Kysely<unknown>): Promise<void> {
        await db.schema.dropTable('reference_secrets').execute()
      },
    },
  }
}

export type { ColumnType }
