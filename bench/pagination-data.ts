import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Kysely, sql, type CompiledQuery } from 'kysely'
import { freshPostgres } from '../test/helpers/databases.js'
import { createDialect, parseDatabaseUrl, type DialectName, type OpenDatabaseOptions } from '../src/kysely/database.js'
import type { Timestamp } from '../src/kysely/schema.js'

/** The benchmark's table: the reference API's `articles` columns, without the users foreign key. */
export interface BenchArticlesTable {
  id: number
  title: string
  author_id: number
  score: number
  created: Timestamp
}

export interface BenchDatabaseSchema {
  articles: BenchArticlesTable
}

/** A loaded benchmark database; `drop()` closes it and deletes the file or database. */
export interface BenchDatabase {
  readonly dialect: DialectName
  readonly db: Kysely<BenchDatabaseSchema>
  readonly rows: number
  /** Where it lives (file path or database name), for the report. */
  readonly location: string
  /** Seconds spent loading, indexing and analysing. */
  readonly loadSeconds: number
  /** On-disk size in MB (table + indexes), for the report. */
  readonly sizeMb: number
  /**
   * Records every query the library sends while `fn` runs (compiled SQL and parameters),
   * so the report can show and EXPLAIN what a paginator really asked for. Not used while timing.
   */
  capture<R>(fn: () => Promise<R>): Promise<{ result: R; queries: CompiledQuery[] }>
  /**
   * Milliseconds spent inside Kysely's query execution so far (driver + database, as
   * Kysely's log reports each query); the difference around a call is its database time.
   */
  queryMs(): number
  drop(): Promise<void>
}

/**
 * Row `i` (1-based) of the benchmark table, matching the reference seed's shape
 * (reference-api/seed.ts) at one row per second instead of per minute: `created`
 * is 2024-01-01T00:00:00Z + m seconds with m = i - 1 when i is a multiple of 5,
 * else i, so rows 4 and 5, 9 and 10, … share a timestamp (ties for the cursor);
 * `score = (i * 7) % 10` (10 values, heavy ties); two authors.
 */
export const ROW_SHAPE =
  'id = i; title = "Article " || i; author_id = 2 - i % 2 (odd: 1, even: 2); score = (i*7) % 10; ' +
  'created = 2024-01-01T00:00:00Z + (i % 5 = 0 ? i - 1 : i) seconds (pairs share a timestamp)'

/** Opens Kysely on `url` like `openDatabase` does, plus a query log the benchmark can switch on. */
async function openWithCapture(url: string, options: OpenDatabaseOptions = {}): Promise<{
  db: Kysely<BenchDatabaseSchema>
  capture: BenchDatabase['capture']
  queryMs: BenchDatabase['queryMs']
}> {
  let sink: CompiledQuery[] | null = null
  let totalMs = 0
  const db = new Kysely<BenchDatabaseSchema>({
    dialect: await createDialect(parseDatabaseUrl(url), options),
    log: (event) => {
      totalMs += event.queryDurationMillis
      if (sink !== null) sink.push(event.query)
    },
  })
  return {
    db,
    queryMs: () => totalMs,
    capture: async (fn) => {
      const queries: CompiledQuery[] = []
      sink = queries
      try {
        return { result: await fn(), queries }
      } finally {
        sink = null
      }
    },
  }
}

/** The PostgreSQL server the benchmark creates its throwaway database on. */
export const DEFAULT_POSTGRES_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/test'

/** Builds and loads a fresh SQLite file with `rows` articles, indexed like reference-api/database.ts. */
export async function createSqliteBench(rows: number): Promise<BenchDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'))
  const path = join(dir, 'bench.sqlite3')
  const started = performance.now()
  const { db, capture, queryMs } = await openWithCapture(`sqlite:${path}`)
  await sql`CREATE TABLE articles (
    id integer PRIMARY KEY AUTOINCREMENT,
    title varchar(200) NOT NULL,
    author_id integer NOT NULL,
    score integer NOT NULL,
    created text NOT NULL
  )`.execute(db)
  // One INSERT … SELECT from a recursive CTE: a single statement, so a single transaction.
  // strftime's %f gives "SS.SSS", so the text is exactly Date#toISOString()'s format, as the seed writes it.
  await sql`INSERT INTO articles (id, title, author_id, score, created)
    WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ${rows})
    SELECT i, 'Article ' || i, 2 - i % 2, (i * 7) % 10,
      strftime('%Y-%m-%dT%H:%M:%fZ', '2024-01-01T00:00:00', '+' || (CASE WHEN i % 5 = 0 THEN i - 1 ELSE i END) || ' seconds')
    FROM seq`.execute(db)
  // Indexes after the load (faster than maintaining them row by row); same as reference-api/database.ts.
  await sql`CREATE INDEX articles_created_id ON articles (created, id)`.execute(db)
  await sql`CREATE INDEX articles_score_id ON articles (score, id)`.execute(db)
  await sql`CREATE INDEX articles_author_id ON articles (author_id, id)`.execute(db)
  await sql`ANALYZE`.execute(db)
  await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db)
  const loadSeconds = (performance.now() - started) / 1000
  return {
    dialect: 'sqlite',
    db,
    rows,
    location: path,
    loadSeconds,
    sizeMb: statSync(path).size / 1e6,
    capture,
    queryMs,
    drop: async () => {
      await db.destroy()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * Creates a uniquely named PostgreSQL database on the server of `adminUrl`, loads `rows`
 * articles with `generate_series`, indexes, VACUUM ANALYZEs it. `drop()` drops only that database.
 */
export async function createPostgresBench(rows: number, adminUrl: string = DEFAULT_POSTGRES_ADMIN_URL): Promise<BenchDatabase> {
  const database = await freshPostgres({ serverUrl: adminUrl, prefix: 'gh_bench_' })
  const dropDatabase = database.drop
  const started = performance.now()
  // A long statement timeout for the load only matters here; page queries are far below the default.
  const { db, capture, queryMs } = await openWithCapture(database.url, { poolSize: 2, statementTimeoutMs: 600_000 })
  try {
    await sql`CREATE TABLE articles (
      id serial PRIMARY KEY,
      title varchar(200) NOT NULL,
      author_id integer NOT NULL,
      score integer NOT NULL,
      created timestamptz NOT NULL
    )`.execute(db)
    await sql`INSERT INTO articles (id, title, author_id, score, created)
      SELECT i, 'Article ' || i, 2 - i % 2, (i * 7) % 10,
        timestamptz '2024-01-01 00:00:00+00' + make_interval(secs => CASE WHEN i % 5 = 0 THEN i - 1 ELSE i END)
      FROM generate_series(1, ${rows}::int) AS s(i)`.execute(db)
    await sql`SELECT setval(pg_get_serial_sequence('articles', 'id'), ${rows}::int)`.execute(db)
    await sql`CREATE INDEX articles_created_id ON articles (created, id)`.execute(db)
    await sql`CREATE INDEX articles_score_id ON articles (score, id)`.execute(db)
    await sql`CREATE INDEX articles_author_id ON articles (author_id, id)`.execute(db)
    // VACUUM sets the visibility map so COUNT(*) and index-only scans behave as on a settled table.
    await sql`VACUUM ANALYZE articles`.execute(db)
  } catch (error) {
    await db.destroy()
    await dropDatabase()
    throw error
  }
  const loadSeconds = (performance.now() - started) / 1000
  const size = await sql<{ bytes: number }>`SELECT pg_total_relation_size('articles')::bigint AS bytes`.execute(db)
  return {
    dialect: 'postgres',
    db,
    rows,
    location: new URL(database.url).pathname.slice(1),
    loadSeconds,
    sizeMb: Number(size.rows[0]?.bytes ?? 0) / 1e6,
    capture,
    queryMs,
    drop: async () => {
      await db.destroy()
      await dropDatabase()
    },
  }
}
