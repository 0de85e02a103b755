/**
 * The production topologies CI runs the reference API's conformance suite through (see
 * scripts/ci-services.sh and docs/scale-out.md, "Production topologies"):
 *
 * - `GATEHOUSE_TEST_REDIS=cluster`: every reference API a test starts without a Redis setting of
 *   its own keeps its sessions, throttles and invalidation in the Redis Cluster at
 *   `REDIS_CLUSTER_NODES` (`server`: the one Redis at `REDIS_URL`), under a prefix of its own.
 * - `GATEHOUSE_TEST_POSTGRES_VIA=pgbouncer`: every fresh PostgreSQL test database is created on
 *   `DATABASE_URL` but served through the PgBouncer at `PGBOUNCER_URL`, with `?pgbouncer=true`
 *   (`GATEHOUSE_TEST_PGBOUNCER_FLAG=off` leaves it out).
 * - `GATEHOUSE_TEST_POSTGRES_VIA=neon` and `GATEHOUSE_TEST_SQLITE_VIA=libsql`: the reference API
 *   opens its database through the edge drivers instead (test/helpers/edge-drivers.ts).
 *
 * Unset (the default), tests run on the direct PostgreSQL and without Redis, as before.
 */
import { randomBytes } from 'node:crypto'
import type { ReferenceConfig } from '../../examples/reference-api/context.js'

type RedisSettings = Pick<ReferenceConfig, 'redisUrl' | 'redisClusterNodes' | 'redisPrefix'>

/** The Redis settings `GATEHOUSE_TEST_REDIS` asks for, with a fresh key prefix; `{}` when unset. */
export function topologyRedis(env: NodeJS.ProcessEnv = process.env): RedisSettings {
  const wanted = env['GATEHOUSE_TEST_REDIS'] ?? ''
  if (wanted === '') return {}
  const redisPrefix = `gatehouse-test:${randomBytes(6).toString('hex')}:`
  if (wanted === 'cluster') {
    const nodes = env['REDIS_CLUSTER_NODES'] ?? ''
    if (nodes === '') throw new Error('GATEHOUSE_TEST_REDIS=cluster needs REDIS_CLUSTER_NODES (scripts/ci-services.sh)')
    return { redisClusterNodes: nodes, redisPrefix }
  }
  if (wanted === 'server') {
    const url = env['REDIS_URL'] ?? ''
    if (url === '') throw new Error('GATEHOUSE_TEST_REDIS=server needs REDIS_URL')
    return { redisUrl: url, redisPrefix }
  }
  throw new Error(`GATEHOUSE_TEST_REDIS must be cluster or server, got "${wanted}"`)
}

/**
 * `url` (a database on the direct PostgreSQL) as the application should reach it: through
 * PgBouncer when `GATEHOUSE_TEST_POSTGRES_VIA=pgbouncer`, else unchanged.
 */
export function topologyDatabaseUrl(url: string, env: NodeJS.ProcessEnv = process.env): string {
  const via = env['GATEHOUSE_TEST_POSTGRES_VIA'] ?? ''
  // neon: the URL of the database itself, which Neon's driver reaches through its proxy (edge-drivers.ts).
  if (via === '' || via === 'neon') return url
  if (via !== 'pgbouncer') throw new Error(`GATEHOUSE_TEST_POSTGRES_VIA must be pgbouncer or neon, got "${via}"`)
  const pooler = env['PGBOUNCER_URL'] ?? ''
  if (pooler === '') throw new Error('GATEHOUSE_TEST_POSTGRES_VIA=pgbouncer needs PGBOUNCER_URL (scripts/ci-services.sh)')
  const direct = new URL(url)
  const through = new URL(pooler)
  through.pathname = direct.pathname
  if (env['GATEHOUSE_TEST_PGBOUNCER_FLAG'] !== 'off') through.searchParams.set('pgbouncer', 'true')
  return through.toString()
}
