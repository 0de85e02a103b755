/**
 * Scale curves on PostgreSQL: requests per second and p99 against concurrent connections
 * (the hand-written baseline and gatehouse on Fastify, one process each), and against the
 * number of gatehouse instances behind nginx (with Redis). Writes `bench/results/scale.json`
 * for `bench/charts.ts`.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379 \
 *     npx tsx bench/scale.ts [--duration 8] [--connections 8,16,32,64,128,256] [--instances 1,2,3,4]
 *       [--path '/api/articles/?page=3'] [--env KEY=VALUE,…] [--out bench/results/scale.json]
 *
 * `--env` is passed to every gatehouse instance (e.g. the count strategy or the token cache).
 * The database is new (`gh_bench_<random>`, dropped at the end). Needs wrk and nginx.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { startCluster, startInstance, type Instance } from '../scripts/multi-instance.js'
import { freshPostgres } from '../test/helpers/databases.js'
import { wrk as runWrk } from './wrk.js'

const arg = (flag: string, fallback: string): string => {
  const i = process.argv.indexOf(flag)
  return i === -1 ? fallback : (process.argv[i + 1] ?? fallback)
}
const list = (text: string): number[] => text.split(',').map(Number)

/** req/s, p99 and the count of bad answers (non-2xx and socket errors) of one wrk run. */
function wrk(url: string, connections: number, duration: number): { rps: number; p99ms: number; bad: number } {
  const r = runWrk(url, connections, duration)
  return { rps: r.rps, p99ms: r.p99ms, bad: r.non2xx + r.errors }
}

async function main(): Promise<void> {
  const duration = Number(arg('--duration', '8'))
  const path = arg('--path', '/api/articles/?page=3')
  const connectionCounts = list(arg('--connections', '8,16,32,64,128,256'))
  const instanceCounts = list(arg('--instances', '1,2,3,4'))
  const out = arg('--out', 'bench/results/scale.json')
  const extraEnv = Object.fromEntries(
    arg('--env', '')
      .split(',')
      .filter((p) => p !== '')
      .map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]),
  )
  const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379'
  const database = await freshPostgres()
  const result: { connections: unknown[]; instances: unknown[]; env: Record<string, string>; path: string; duration: number } = {
    connections: [],
    instances: [],
    env: extraEnv,
    path,
    duration,
  }
  const started: Instance[] = []
  try {
    const gatehouse = await startInstance({ env: { DATABASE_URL: database.url, REDIS_URL: undefined, GATEHOUSE_FRAMEWORK: 'fastify', ...extraEnv } })
    started.push(gatehouse)
    const hand = await startInstance({ env: { DATABASE_URL: database.url }, script: [join(import.meta.dirname, 'hand-written-server.ts')] })
    started.push(hand)
    const servers = [
      { name: 'hand-written', instance: hand },
      { name: 'gatehouse fastify', instance: gatehouse },
    ]
    for (const s of servers) wrk(`${s.instance.baseUrl}${path}`, 32, 3)
    for (const connections of connectionCounts) {
      for (const s of servers) {
        const r = wrk(`${s.instance.baseUrl}${path}`, connections, duration)
        result.connections.push({ server: s.name, db: 'postgres', connections, ...r })
        process.stderr.write(`${s.name} c=${connections}: ${r.rps.toFixed(0)} req/s, p99 ${r.p99ms.toFixed(1)} ms, ${r.bad} bad\n`)
      }
    }
    await Promise.all(started.map((i) => i.stop()))
    started.length = 0
    for (const instances of instanceCounts) {
      const cluster = await startCluster({ instances, databaseUrl: database.url, redisUrl, env: { GATEHOUSE_FRAMEWORK: 'fastify', ...extraEnv } })
      try {
        wrk(`${cluster.baseUrl}${path}`, 64, 3)
        const r = wrk(`${cluster.baseUrl}${path}`, 64, duration)
        result.instances.push({ instances, connections: 64, ...r })
        process.stderr.write(`${instances} instance(s) behind nginx: ${r.rps.toFixed(0)} req/s, p99 ${r.p99ms.toFixed(1)} ms, ${r.bad} bad\n`)
      } finally {
        await cluster.close()
      }
    }
  } finally {
    await Promise.all(started.map((i) => i.stop()))
    await database.drop()
  }
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(out, JSON.stringify(result, null, 2))
  console.log(`wrote ${out}`)
}

await main()
