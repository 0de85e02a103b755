import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { topologyDatabaseUrl } from './topology.js'

/** A database a test may create tables in and throw away. */
export interface TestDatabase {
  /** Its SQL dialect: Cloudflare D1 (`freshD1`) is SQLite. */
  readonly name: 'sqlite' | 'postgres'
  /** A `DATABASE_URL` for it; `d1:<folder>` for D1 (where Miniflare keeps it). */
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

/**
 * A fresh D1 database: a temporary folder Miniflare keeps it in (`d1:<folder>`), which the
 * reference API's Worker binds as `DB` (test/helpers/workerd-reference.ts).
 */
export function freshD1(): TestDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-d1-'))
  return { name: 'sqlite', url: `d1:${dir}`, drop: async () => rmSync(dir, { recursive: true, force: true }) }
}

/** True when `DATABASE_URL` points at PostgreSQL (CI sets it; a laptop may not). */
export function postgresAvailable(): boolean {
  return /^postgres(ql)?:\/\//.test(process.env['DATABASE_URL'] ?? '')
}

/** Runs one statement on `serverUrl` with a short-lived client (CREATE/DROP DATABASE cannot run in a pool transaction). */
async function runOnServer(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

/**
 * A fresh, empty PostgreSQL database named `<prefix><random>` on the server of
 * `serverUrl` (default `DATABASE_URL`), so test files and benchmarks running in
 * parallel never share tables. `drop()` drops that database only.
 */
export async function freshPostgres(
  options: { readonly serverUrl?: string; readonly prefix?: string; readonly template?: string } = {},
): Promise<TestDatabase> {
  const base = options.serverUrl ?? process.env['DATABASE_URL']
  if (base === undefined || !/^postgres(ql)?:\/\//.test(base)) throw new Error('DATABASE_URL is not a postgres:// URL')
  const name = `${options.prefix ?? 'gh_test_'}${randomBytes(6).toString('hex')}`
  await runOnServer(base, options.template === undefined ? `CREATE DATABASE ${name}` : `CREATE DATABASE ${name} TEMPLATE ${options.template}`)
  const url = new URL(base)
  url.pathname = `/${name}`
  return {
    name: 'postgres',
    // Through PgBouncer when GATEHOUSE_TEST_POSTGRES_VIA says so; created and dropped directly.
    url: topologyDatabaseUrl(url.toString()),
    drop: () => runOnServer(base, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  }
}

/** `GATEHOUSE_TEST_BACKENDS` (comma-separated, e.g. `postgres` for the runs through PgBouncer) narrows them; unset: both. */
function wanted(name: string): boolean {
  const list = process.env['GATEHOUSE_TEST_BACKENDS'] ?? ''
  return list === '' || list.split(',').some((b) => b.trim() === name)
}

/**
 * The backends a cross-database test runs on: SQLite; PostgreSQL when `DATABASE_URL` is
 * set to one. A backend that is unavailable (or that `GATEHOUSE_TEST_BACKENDS` leaves out)
 * is reported as skipped by the caller (`describe.skipIf`), never counted as passing. When the
 * reference API runs in workerd (`GATEHOUSE_TEST_FRAMEWORK=workerd`), D1 alone (SQLite, the
 * database a Worker has).
 */
export const BACKENDS: readonly { readonly name: 'sqlite' | 'postgres'; readonly available: boolean; create(): Promise<TestDatabase> }[] =
  process.env['GATEHOUSE_TEST_FRAMEWORK'] === 'workerd'
    ? [{ name: 'sqlite', available: true, create: async () => freshD1() }]
    : [
        { name: 'sqlite', available: wanted('sqlite'), create: async () => freshSqlite() },
        { name: 'postgres', available: postgresAvailable() && wanted('postgres'), create: freshPostgres },
      ]

/**
 * The databases an oracle comparison (test/oracle/*.test.ts) runs on under the framework of this
 * run (`GATEHOUSE_TEST_FRAMEWORK`). The adapters do not touch the database and the stores do not
 * know the framework, so the oracle does not need every framework × database pair: Fastify compares
 * on both, Express and node:http on PostgreSQL, Hono on SQLite. The conformance suite still runs
 * every pair, and `GATEHOUSE_ORACLE_EVERY_BACKEND=1` gives the oracle every pair too. Left-out
 * backends are not declared at all, so they are never reported as skipped.
 */
export function oracleBackends(): typeof BACKENDS {
  const framework = process.env['GATEHOUSE_TEST_FRAMEWORK'] ?? ''
  const paired = ORACLE_BACKENDS_BY_FRAMEWORK[framework]
  if (paired === undefined || process.env['GATEHOUSE_ORACLE_EVERY_BACKEND'] === '1') return BACKENDS
  return BACKENDS.filter((backend) => paired.includes(backend.name))
}

const ORACLE_BACKENDS_BY_FRAMEWORK: Readonly<Record<string, readonly string[]>> = {
  fastify: ['sqlite', 'postgres'],
  express: ['postgres'],
  hono: ['sqlite'],
  node: ['postgres'],
}
