import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'

/** A database a test may create tables in and throw away. */
export interface TestDatabase {
  readonly name: 'sqlite' | 'postgres'
  /** A `DATABASE_URL` for it. */
  readonly url: string
  drop(): Promise<void>
}

/** A fresh SQLite file in a temporary folder. */
export function freshSqlite(): TestDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-test-'))
  return {
    name: 'sqlite',
    url: `sqlite:${join(dir, 'test.sqlite3')}`,
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  }
}

/** True when `DATABASE_URL` points at PostgreSQL (CI sets it; a laptop may not). */
export function postgresAvailable(): boolean {
  return /^postgres(ql)?:\/\//.test(process.env['DATABASE_URL'] ?? '')
}

/**
 * A fresh, empty PostgreSQL database created on the server of `DATABASE_URL`,
 * so test files running in parallel never share tables. Dropped by `drop()`.
 */
export async function freshPostgres(): Promise<TestDatabase> {
  const base = process.env['DATABASE_URL']
  if (base === undefined || !postgresAvailable()) throw new Error('DATABASE_URL is not a postgres:// URL')
  const name = `gh_test_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE ${name}`)
  } finally {
    await admin.end()
  }
  const url = new URL(base)
  url.pathname = `/${name}`
  return {
    name: 'postgres',
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: base })
      await client.connect()
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      } finally {
        await client.end()
      }
    },
  }
}

/**
 * The backends a cross-database test runs on: SQLite always; PostgreSQL when
 * `DATABASE_URL` is set to one. When it is not, the PostgreSQL case is reported
 * as skipped by the caller (`describe.skipIf`), never counted as passing.
 */
export const BACKENDS: readonly { readonly name: 'sqlite' | 'postgres'; readonly available: boolean; create(): Promise<TestDatabase> }[] = [
  { name: 'sqlite', available: true, create: async () => freshSqlite() },
  { name: 'postgres', available: postgresAvailable(), create: freshPostgres },
]
