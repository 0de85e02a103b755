/**
 * Load run: N reference-API instances behind nginx on PostgreSQL and Redis, hammered
 * with token-authenticated list requests by autocannon. Loopback only, bounded in time.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379 \
 *     npx tsx bench/load.ts [--duration 60] [--connections 64] [--instances 2] [--path /api/articles/] [--json out.json]
 *
 * Creates a NEW database `gh_bench_<random>` on DATABASE_URL's server (dropped at the
 * end) so the shared one is never touched; the instances only connect to Redis (a
 * token-authenticated list reads no session or throttle counter). Prints requests per
 * second, latency percentiles and the status counts; exits 1 when any response other
 * than 2xx or a deliberate 429 came back, or any connection error or timeout happened.
 */
import { writeFileSync } from 'node:fs'
import autocannon from 'autocannon'
import { startCluster } from '../scripts/multi-instance.js'
import { freshPostgres } from '../test/helpers/databases.js'

const BOB_TOKEN = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'

interface Options {
  duration: number
  connections: number
  instances: number
  path: string
  warmup: number
  json: string | null
}

function parseArgs(argv: readonly string[]): Options {
  const options: Options = { duration: 60, connections: 64, instances: 2, path: '/api/articles/', warmup: 5, json: null }
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]]
    if (value === undefined) throw new Error(`missing value for ${flag}`)
    if (flag === '--duration') options.duration = Number(value)
    else if (flag === '--connections') options.connections = Number(value)
    else if (flag === '--instances') options.instances = Number(value)
    else if (flag === '--warmup') options.warmup = Number(value)
    else if (flag === '--path') options.path = value
    else if (flag === '--json') options.json = value
    else throw new Error(`unknown option ${flag}`)
  }
  for (const key of ['duration', 'connections', 'instances'] as const) {
    if (!Number.isInteger(options[key]) || options[key] < 1) throw new Error(`--${key} must be a positive integer`)
  }
  return options
}

function fire(url: string, connections: number, duration: number): Promise<autocannon.Result> {
  return autocannon({
    url,
    connections,
    duration,
    headers: { Authorization: `Token ${BOB_TOKEN}`, Accept: 'application/json' },
    timeout: 10,
  })
}

async function main(): Promise<number> {
  const options = parseArgs(process.argv.slice(2))
  const databaseUrl = process.env['DATABASE_URL']
  const redisUrl = process.env['REDIS_URL']
  if (databaseUrl === undefined || !/^postgres(ql)?:\/\//.test(databaseUrl) || redisUrl === undefined || redisUrl === '') {
    throw new Error('set DATABASE_URL (postgres://…) and REDIS_URL')
  }
  const database = await freshPostgres({ serverUrl: databaseUrl, prefix: 'gh_bench_' })
  try {
    const cluster = await startCluster({ instances: options.instances, databaseUrl: database.url, redisUrl })
    try {
      const url = `${cluster.baseUrl}${options.path}`
      const check = await fetch(url, { headers: { Authorization: `Token ${BOB_TOKEN}` } })
      if (check.status !== 200) throw new Error(`${url} answered ${check.status}: ${await check.text()}`)
      console.error(`${options.instances} instances behind nginx at ${cluster.baseUrl}; warm-up ${options.warmup} s…`)
      if (options.warmup > 0) await fire(url, options.connections, options.warmup)
      console.error(`measuring ${options.duration} s at ${options.connections} connections: GET ${options.path} with a token`)
      const result = await fire(url, options.connections, options.duration)
      const statuses = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count ?? 0]))
      const throttled = statuses['429'] ?? 0
      const unexpected = result.non2xx - throttled
      const summary = {
        target: `GET ${options.path} (Authorization: Token), ${options.instances} instances behind nginx, PostgreSQL + Redis`,
        duration_s: result.duration,
        connections: result.connections,
        requests_total: result.requests.total,
        requests_per_s_avg: Math.round(result.requests.average),
        latency_ms: {
          avg: result.latency.average,
          p50: result.latency.p50,
          p90: result.latency.p90,
          p99: result.latency.p99,
          max: result.latency.max,
        },
        statuses,
        non2xx: result.non2xx,
        throttled_429: throttled,
        unexpected_non2xx: unexpected,
        errors: result.errors,
        timeouts: result.timeouts,
      }
      console.log(JSON.stringify(summary, null, 2))
      console.log(
        `\n${summary.requests_per_s_avg} req/s, p99 ${summary.latency_ms.p99} ms, ` +
          `${unexpected} unexpected non-2xx, ${throttled} 429, ${result.errors} errors, ${result.timeouts} timeouts`,
      )
      if (options.json !== null) writeFileSync(options.json, `${JSON.stringify(summary, null, 2)}\n`)
      return unexpected === 0 && result.errors === 0 && result.timeouts === 0 ? 0 : 1
    } finally {
      await cluster.close()
    }
  } finally {
    await database.drop()
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`bench/load: ${error instanceof Error ? error.message : String(error)}`)
    process.exit(1)
  },
)
