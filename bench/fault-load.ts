/**
 * Faults under load (issue 27): one reference-API instance on a throwaway PostgreSQL and a
 * throwaway Redis (loopback ports 25500-25599, never the shared servers), driven open-loop at
 * about 100 requests/s with a realistic mix (token and Basic reads, cursor walks, article
 * creates, token obtains, session login/logout with CSRF, a trickle of wrong passwords), while
 * one fault is injected for a bounded time. Requests name their client in X-Forwarded-For (the
 * instance trusts one proxy), one of `--clients` addresses in turn; `--clients 1` sends every
 * login from one address, which then meets the per-(username, address) cap on checks in progress. Failed-login throttling (5/min), Redis sessions and
 * the token cache are on.
 *
 *   npx tsx bench/fault-load.ts --fault pg-freeze [--framework fastify] [--rate 100] [--fault-seconds 10]
 *     [--clients 20] [--json out.json] [--samples every-request.json]
 *
 * Faults: pg-freeze, pg-stop, redis-freeze, redis-stop (SIGSTOP / stop of the throwaway server).
 * Prints, as JSON: status counts, the slowest answer during the fault, time to the first 503,
 * recovery time after the fault ends, right-password 429s, failed-login entries in Redis that no
 * wrong password made, and the fate of every create (acknowledged, lost, duplicated, or answered
 * 503 and committed anyway). Exits 1 when a 5xx other than 503 came back or a request got no answer.
 */
import { writeFileSync } from 'node:fs'
import { Redis } from 'ioredis'
import pg from 'pg'
import { startInstance } from '../scripts/multi-instance.js'
import { startThrowawayPostgres, startThrowawayRedis, type ThrowawayServer } from '../test/faults/throwaway-servers.js'

const BOB_TOKEN = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'
const FAULTS = ['pg-freeze', 'pg-stop', 'redis-freeze', 'redis-stop'] as const
type Fault = (typeof FAULTS)[number]
type Kind = 'token-read' | 'basic-read' | 'cursor' | 'create' | 'obtain' | 'session' | 'wrong-password'

/** Kinds and their share of the tasks (a session task is four requests). */
const MIX: readonly (readonly [Kind, number])[] = [
  ['token-read', 30],
  ['basic-read', 12],
  ['cursor', 20],
  ['create', 15],
  ['obtain', 10],
  ['session', 6],
  ['wrong-password', 1],
]
/** Kinds that send alice's right password. */
const RIGHT_PASSWORD: ReadonlySet<Kind> = new Set(['basic-read', 'obtain', 'session'])

interface Options {
  fault: Fault
  framework: string
  rate: number
  /** Seconds of load before the measured part (pool connections opening, JIT): reported apart. */
  warmup: number
  before: number
  faultSeconds: number
  after: number
  json: string | null
  /** Every request's kind, start, duration and status, as JSON, to look into a run. */
  samples: string | null
  /** Right-password and wrong-password traffic comes from this many client addresses (X-Forwarded-For behind one trusted proxy). */
  clients: number
}

function parseArgs(argv: readonly string[]): Options {
  const options: Options = { fault: 'pg-freeze', framework: 'fastify', rate: 100, warmup: 5, before: 5, faultSeconds: 10, after: 20, json: null, samples: null, clients: 20 }
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]]
    if (value === undefined) throw new Error(`missing value for ${flag}`)
    if (flag === '--fault') {
      const fault = FAULTS.find((f) => f === value)
      if (fault === undefined) throw new Error(`--fault must be one of ${FAULTS.join(', ')}`)
      options.fault = fault
    } else if (flag === '--framework') options.framework = value
    else if (flag === '--rate') options.rate = Number(value)
    else if (flag === '--before') options.before = Number(value)
    else if (flag === '--warmup') options.warmup = Number(value)
    else if (flag === '--fault-seconds') options.faultSeconds = Number(value)
    else if (flag === '--after') options.after = Number(value)
    else if (flag === '--json') options.json = value
    else if (flag === '--samples') options.samples = value
    else if (flag === '--clients') options.clients = Number(value)
    else throw new Error(`unknown option ${flag}`)
  }
  if (!Number.isInteger(options.clients) || options.clients < 1 || options.clients > 250) throw new Error('--clients must be an integer of 1 to 250')
  for (const key of ['rate', 'before', 'faultSeconds', 'after'] as const) {
    if (!(options[key] > 0 && options[key] <= 600)) throw new Error(`--${key} must be a number of 1 to 600`)
  }
  return options
}

interface Sample {
  readonly kind: Kind
  readonly start: number
  readonly ms: number
  /** HTTP status, or 0 when no answer came (connection error or the 15 s client timeout). */
  readonly status: number
}

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0)
}

const basicHeader = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2))
  const [postgres, redis] = await Promise.all([startThrowawayPostgres(), startThrowawayRedis()])
  const instance = await startInstance({
    env: {
      DATABASE_URL: postgres.url,
      REDIS_URL: redis.url,
      GATEHOUSE_FRAMEWORK: options.framework,
      GATEHOUSE_LOGIN_FAILURES: '5/min',
      GATEHOUSE_NUM_PROXIES: '1',
      GATEHOUSE_TOKEN_CACHE_TTL_MS: '30000',
      // A cheap hash: at ~30 password checks a second the library's scrypt cost would need more cores than the machine has.
      GATEHOUSE_SCRYPT_N: '1024',
      GATEHOUSE_DB_TIMEOUT_MS: undefined,
      GATEHOUSE_REDIS_TIMEOUT_MS: undefined,
    },
    startTimeoutMs: 120_000,
  })
  const base = instance.baseUrl
  const t0 = performance.now()
  const now = (): number => performance.now() - t0
  const everySample: Sample[] = []
  const acknowledged: string[] = []
  const refusedWrites: string[] = []
  let cursorNext: string | null = null
  let inFlight = 0
  let skipped = 0
  let serial = 0

  let clientTurn = 0
  const send = async (kind: Kind, path: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; text: string } | null> => {
    const start = now()
    // As if behind one proxy: each request names its client, one of --clients addresses in turn.
    const headers = new Headers(init.headers)
    headers.set('x-forwarded-for', `198.51.100.${(clientTurn++ % options.clients) + 1}`)
    try {
      const response = await fetch(new URL(path, base), { ...init, headers, signal: AbortSignal.timeout(15_000) })
      const text = await response.text()
      everySample.push({ kind, start, ms: now() - start, status: response.status })
      return { status: response.status, headers: response.headers, text }
    } catch {
      everySample.push({ kind, start, ms: now() - start, status: 0 })
      return null
    }
  }
  const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })

  const task = async (kind: Kind): Promise<void> => {
    switch (kind) {
      case 'token-read':
        await send(kind, '/api/schemes/token/', { headers: { authorization: `Token ${BOB_TOKEN}` } })
        return
      case 'basic-read':
        await send(kind, '/api/schemes/basic/', { headers: { authorization: basicHeader('alice', 'alice-pass-1') } })
        return
      case 'wrong-password':
        await send(kind, '/api/schemes/basic/', { headers: { authorization: basicHeader('nobody', 'guess') } })
        return
      case 'obtain':
        await send(kind, '/api/auth/token/', json({ username: 'alice', password: 'alice-pass-1' }))
        return
      case 'cursor': {
        const response = await send(kind, cursorNext ?? '/api/articles/cursor/', { headers: { authorization: `Token ${BOB_TOKEN}` } })
        if (response?.status !== 200) return
        let page: { next?: string | null } | null = null
        try {
          page = JSON.parse(response.text) as { next?: string | null }
        } catch {
          page = null
        }
        cursorNext = page?.next ?? null
        return
      }
      case 'create': {
        const title = `load ${process.pid} ${++serial}`
        const response = await send(kind, '/api/articles/', json({ title, score: serial % 100 }, { authorization: `Token ${BOB_TOKEN}` }))
        if (response?.status === 201) acknowledged.push(title)
        else if (response?.status === 503 || response === null) refusedWrites.push(title)
        return
      }
      case 'session': {
        const csrf = await send(kind, '/api/auth/csrf/')
        const token = /csrftoken=([^;]+)/.exec(csrf?.headers.get('set-cookie') ?? '')?.[1]
        if (token === undefined) return
        const login = await send(kind, '/api/auth/login/', json({ username: 'alice', password: 'alice-pass-1' }, { cookie: `csrftoken=${token}`, 'x-csrftoken': token }))
        const cookies = (login?.headers.getSetCookie() ?? []).map((c) => c.split(';', 1)[0]).join('; ')
        const rotated = /csrftoken=([^;]+)/.exec(cookies)?.[1] ?? token
        if (login?.status !== 200) return
        await send(kind, '/api/whoami/', { headers: { cookie: cookies } })
        await send(kind, '/api/auth/logout/', { method: 'POST', headers: { cookie: cookies, 'x-csrftoken': rotated } })
        return
      }
    }
  }

  const total = MIX.reduce((sum, [, weight]) => sum + weight, 0)
  let pick = 0
  const nextKind = (): Kind => {
    // Deterministic round-robin over the weighted mix.
    let slot = pick++ % total
    for (const [kind, weight] of MIX) {
      if (slot < weight) return kind
      slot -= weight
    }
    return 'token-read'
  }
  // A session task is four requests: scale the task rate so requests/s is about --rate.
  const requestsPerTask = MIX.reduce((sum, [kind, weight]) => sum + weight * (kind === 'session' ? 4 : 1), 0) / total
  const intervalMs = 1000 / (options.rate / requestsPerTask)
  const warmupMs = options.warmup * 1000
  const endAt = warmupMs + (options.before + options.faultSeconds + options.after) * 1000
  const tasks: Promise<void>[] = []
  const driver = (async () => {
    let next = now()
    while (now() < endAt) {
      if (inFlight < 400) {
        inFlight++
        tasks.push(task(nextKind()).finally(() => inFlight--))
      } else skipped++
      next += intervalMs
      await new Promise((ok) => setTimeout(ok, Math.max(0, next - now())))
    }
  })()

  const server: ThrowawayServer = options.fault.startsWith('pg') ? postgres : redis
  await new Promise((ok) => setTimeout(ok, warmupMs + options.before * 1000))
  const faultStart = now()
  if (options.fault.endsWith('freeze')) await server.freeze()
  else await server.stop()
  await new Promise((ok) => setTimeout(ok, Math.max(0, options.faultSeconds * 1000 - (now() - faultStart))))
  if (options.fault.endsWith('freeze')) await server.thaw()
  else await server.start()
  const faultEnd = now()
  await driver
  await Promise.all(tasks)

  // Every create's fate, read from the database itself.
  const db = new pg.Client({ connectionString: postgres.url })
  await db.connect()
  const counts = new Map<string, number>()
  for (const row of (await db.query<{ title: string; n: number }>("select title, count(*)::int as n from articles where title like 'load %' group by title")).rows) {
    counts.set(row.title, row.n)
  }
  await db.end()
  const redisClient = new Redis(redis.url)
  let aliceFailures = 0
  let allFailures = 0
  for (const key of await redisClient.keys('gatehouse:login_failures_*')) {
    const failures = (await redisClient.zrange(key, 0, '-1')).filter((m) => m.startsWith('f:')).length
    allFailures += failures
    // The per-username key of alice (from every address) holds only failures made for alice.
    if (key.includes('_user_')) {
      const aliceDigest = (await import('node:crypto')).createHash('sha256').update('alice').digest('hex').slice(0, 32)
      if (key.endsWith(aliceDigest)) aliceFailures += failures
    }
  }
  redisClient.disconnect()
  const output = instance.output()
  await instance.stop()
  await Promise.all([postgres.destroy(), redis.destroy()])

  const warmupStatuses: Record<string, number> = {}
  for (const s of everySample.filter((x) => x.start < warmupMs)) warmupStatuses[s.status] = (warmupStatuses[s.status] ?? 0) + 1
  const warmupMaxMs = Math.round(Math.max(0, ...everySample.filter((x) => x.start < warmupMs).map((x) => x.ms)))
  // The measured part: requests started after the warm-up.
  const samples = everySample.filter((x) => x.start >= warmupMs)
  const statuses: Record<string, number> = {}
  for (const s of samples) statuses[s.status] = (statuses[s.status] ?? 0) + 1
  const during = samples.filter((s) => s.start >= faultStart && s.start <= faultEnd)
  const first503 = samples.filter((s) => s.status === 503 && s.start >= faultStart).map((s) => s.start + s.ms)
  const failedAfter = samples.filter((s) => s.start > faultEnd && s.status >= 500)
  const lastFailure = failedAfter.reduce((latest, s) => Math.max(latest, s.start + s.ms), faultEnd)
  const rightPassword429 = samples.filter((s) => RIGHT_PASSWORD.has(s.kind) && s.status === 429)
  const wrongPasswordsSent = samples.filter((s) => s.kind === 'wrong-password' && s.status === 401).length
  const round = (ms: number): number => Math.round(ms)
  const report = {
    fault: options.fault,
    framework: options.framework,
    clients: options.clients,
    warmup: { seconds: options.warmup, statuses: warmupStatuses, maxMs: warmupMaxMs },
    requestsPerSecond: Math.round((samples.length / (endAt - warmupMs)) * 1000),
    requests: samples.length,
    skippedTicks: skipped,
    statuses,
    maxMs: round(Math.max(...samples.map((s) => s.ms))),
    maxMsDuringFault: round(Math.max(0, ...during.map((s) => s.ms))),
    maxMs503: round(Math.max(0, ...samples.filter((s) => s.status === 503).map((s) => s.ms))),
    faultMs: round(faultEnd - faultStart),
    firstAnswer503AfterFaultMs: first503.length === 0 ? null : round(Math.min(...first503) - faultStart),
    recoveryAfterFaultEndMs: round(lastFailure - faultEnd),
    rightPassword429: {
      beforeFault: rightPassword429.filter((s) => s.start < faultStart).length,
      duringFault: rightPassword429.filter((s) => s.start >= faultStart && s.start <= faultEnd).length,
      afterFault: rightPassword429.filter((s) => s.start > faultEnd).length,
      rightPasswordChecks: samples.filter((s) => RIGHT_PASSWORD.has(s.kind)).length,
    },
    p99MsBeforeFault: percentile(samples.filter((s) => s.start < faultStart).map((s) => s.ms), 0.99),
    p99MsAfterFault: percentile(samples.filter((s) => s.start > faultEnd).map((s) => s.ms), 0.99),
    failedLoginEntries: { alice: aliceFailures, all: allFailures, wrongPasswordChecksAnswered401: wrongPasswordsSent },
    writes: {
      acknowledged: acknowledged.length,
      acknowledgedLost: acknowledged.filter((t) => (counts.get(t) ?? 0) === 0).length,
      duplicated: [...counts.values()].filter((n) => n > 1).length,
      answered503OrNoAnswer: refusedWrites.length,
      answered503ButCommitted: refusedWrites.filter((t) => (counts.get(t) ?? 0) > 0).length,
    },
    logLines: {
      per503: output.split('\n').filter((line) => line.startsWith('gatehouse: 503 ')).length,
      outageBegan: output.split('\n').filter((line) => line.includes('outage began')).length,
      outageOver: output.split('\n').filter((line) => line.includes('outage over')),
      stackLines: output.split('\n').filter((line) => /^\s+at /.test(line)).length,
    },
  }
  console.log(JSON.stringify(report, null, 2))
  if (options.json !== null) writeFileSync(options.json, `${JSON.stringify(report, null, 2)}\n`)
  if (options.samples !== null) {
    writeFileSync(options.samples, `${JSON.stringify({ warmupMs, faultStart, faultEnd, samples: everySample })}\n`)
    writeFileSync(`${options.samples}.server.log`, output)
  }
  const bad = everySample.filter((s) => s.status === 0 || (s.status >= 500 && s.status !== 503))
  if (bad.length > 0) process.exitCode = 1
}

await main()
