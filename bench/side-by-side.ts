/**
 * Side by side, in one run: the hand-written baseline (`bench/hand-written-server.ts`) and
 * the gatehouse reference API on each framework, serving the same request from the same
 * database, loaded in turn by wrk (rounds alternate the servers, so load from elsewhere hits
 * all alike). Reports requests per second, p50/p99 latency, and CPU milliseconds per request
 * of the server process and of the PostgreSQL backends.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test \
 *     npx tsx bench/side-by-side.ts [--db sqlite|postgres|both] [--duration 10 | --requests 20000] [--connections 32]
 *       [--rounds 3] [--path '/api/articles/?page=3'] [--servers hand,fastify,express,hono,node,plain]
 *       [--variant name:ENV=value,ENV=value]… [--before name:/checkout/of/another/commit]… [--json out.json]
 *       [--pooler postgres://user@host:6432 [--pooler-flag on|off|both]]
 *
 * `plain` is the stack a user would write instead (`plain-stack-server.ts`: Fastify, @fastify/auth
 * and Kysely building each query per request).
 * `--variant` adds a gatehouse server (on Fastify unless its env sets GATEHOUSE_FRAMEWORK)
 * with extra environment, e.g. `--variant cached:GATEHOUSE_COUNT=cached:60000`.
 * `--pooler URL` (PostgreSQL only): a transaction pooler such as PgBouncer in front of
 * DATABASE_URL's server (`scripts/ci-services.sh` starts one on 127.0.0.1:6432). Every gatehouse
 * server and variant is also served through it, on the same database (its name replaces the
 * URL's path), with `?pgbouncer=true` (`--pooler-flag on`, the default), without it (`off`: the
 * pool finds the pooler itself, with one warning), or both. The table then also gives the
 * pooler's CPU per request (every `pgbouncer` process) and each server's warnings about a pooler.
 * Non-2xx answers and socket errors are counted in every run, warm-up included; any makes the
 * command exit non-zero after the report.
 * Each database is new (a temporary SQLite file, or a `gh_bench_<random>` database on the
 * server of DATABASE_URL, dropped at the end), migrated and seeded by the reference API
 * (137 articles). Before loading, every server's answer is fetched and must equal the
 * baseline's byte for byte (ports masked): the baseline does the same work, not less.
 * Uses `wrk` (Debian package) when installed, else autocannon; `--requests N` sends a fixed
 * number of requests per run (autocannon), the steadier measure of CPU per request on a busy machine.
 */
import { execSync } from 'node:child_process'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startInstance as startReferenceInstance, type Instance } from '../scripts/multi-instance.js'
import { freshPostgres, freshSqlite, type TestDatabase } from '../test/helpers/databases.js'
import { bundleForCallgrind, callgrindCommand, instructionsOver } from './callgrind.js'
import { BOB_TOKEN, load, type LoadLength, type WrkResult } from './wrk.js'

const CLOCK_TICKS = Number(execSync('getconf CLK_TCK').toString().trim()) || 100

interface Options {
  dbs: ('sqlite' | 'postgres')[]
  duration: number
  /** A fixed number of requests per run instead of a duration (autocannon). */
  requests: number | null
  connections: number
  rounds: number
  path: string
  servers: string[]
  variants: { name: string; env: Record<string, string> }[]
  /** Checkouts of another commit to serve beside (`--before name:dir`), on Fastify. */
  before: { name: string; root: string }[]
  json: string | null
  /** Instead of loading: N sequential requests per server, bytes allocated and promises created per request (alloc-probe.ts). */
  alloc: number | null
  /** Instead of loading: N sequential requests per server under callgrind, instructions per request (idle subtracted). */
  callgrind: number | null
  /** A transaction pooler in front of DATABASE_URL's server: gatehouse servers are also served through it. */
  pooler: string | null
  /** With `?pgbouncer=true` (on), without (off), or each. */
  poolerFlags: ('on' | 'off')[]
}

function parseArgs(argv: readonly string[]): Options {
  const o: Options = {
    dbs: ['sqlite', 'postgres'],
    duration: 10,
    requests: null,
    connections: 32,
    rounds: 3,
    path: '/api/articles/?page=3',
    servers: ['hand', 'fastify', 'express', 'hono', 'node', 'plain'],
    variants: [],
    before: [],
    json: null,
    alloc: null,
    callgrind: null,
    pooler: null,
    poolerFlags: ['on'],
  }
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]]
    if (value === undefined) throw new Error(`missing value for ${flag}`)
    if (flag === '--db') o.dbs = value === 'both' ? ['sqlite', 'postgres'] : [value as 'sqlite' | 'postgres']
    else if (flag === '--duration') o.duration = Number(value)
    else if (flag === '--requests') o.requests = Number(value)
    else if (flag === '--connections') o.connections = Number(value)
    else if (flag === '--rounds') o.rounds = Number(value)
    else if (flag === '--path') o.path = value
    else if (flag === '--servers') o.servers = value.split(',').filter((s) => s !== '')
    else if (flag === '--variant') {
      const [name, settings = ''] = value.split(/:(.*)/s)
      const env: Record<string, string> = {}
      for (const pair of settings.split(',').filter((p) => p !== '')) {
        const eq = pair.indexOf('=')
        env[pair.slice(0, eq)] = pair.slice(eq + 1)
      }
      o.variants.push({ name: name ?? 'variant', env })
    } else if (flag === '--before') {
      const colon = value.indexOf(':')
      o.before.push({ name: value.slice(0, colon), root: value.slice(colon + 1) })
    } else if (flag === '--json') o.json = value
    else if (flag === '--alloc') o.alloc = Number(value)
    else if (flag === '--callgrind') o.callgrind = Number(value)
    else if (flag === '--pooler') o.pooler = value
    else if (flag === '--pooler-flag') {
      if (value !== 'on' && value !== 'off' && value !== 'both') throw new Error(`--pooler-flag must be on, off or both, got ${value}`)
      o.poolerFlags = value === 'both' ? ['on', 'off'] : [value]
    }
    else throw new Error(`unknown option ${flag}`)
  }
  return o
}

/** CPU ticks (user + system) of one process, from /proc/<pid>/stat; 0 when it is gone. */
function processTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return Number(fields[11]) + Number(fields[12])
  } catch {
    return 0
  }
}

/** CPU ticks of every process named `command` (`postgres`: the PostgreSQL server's), by pid. */
function postgresTicks(command = 'postgres'): Map<number, number> {
  const out = new Map<number, number>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (readFileSync(join('/proc', entry, 'comm'), 'utf8').trim() !== command) continue
      out.set(Number(entry), processTicks(Number(entry)))
    } catch {
      // exited meanwhile
    }
  }
  return out
}

function ticksDelta(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0
  for (const [pid, ticks] of after) sum += ticks - (before.get(pid) ?? 0)
  return sum
}

interface Server {
  readonly name: string
  readonly instance: Instance
}

interface Sample extends WrkResult {
  server: string
  tool: 'wrk' | 'autocannon'
  nodeCpuMsPerRequest: number
  dbCpuMsPerRequest: number | null
  /** The pooler's CPU per request (`--pooler` runs only). */
  poolerCpuMsPerRequest: number | null
  /** Non-2xx answers in this server's warm-up (the loaded run's are `non2xx`). */
  warmupNon2xx: number
  /** The server's warnings about a transaction pooler so far. */
  poolerWarnings: number
}

const PROBE = join(import.meta.dirname, 'alloc-probe.ts')
const REFERENCE_MAIN = (root: string): string => join(root, 'examples', 'reference-api', 'main.ts')

async function startServers(options: Options, database: TestDatabase, promises = false, wrapper?: readonly string[]): Promise<Server[]> {
  const env = { DATABASE_URL: database.url, REDIS_URL: undefined, LOG_LEVEL: undefined, GH_PROBE_PROMISES: promises ? '1' : undefined }
  // With --alloc every server loads the probe.
  const probe = options.alloc === null ? [] : ['--import', PROBE]
  const root = join(import.meta.dirname, '..')
  const servers: Server[] = []
  const gatehouse = options.servers.filter((s) => s !== 'hand' && s !== 'hand-express' && s !== 'plain')
  if (wrapper !== undefined) {
    // Migrating and seeding (password hashing) under valgrind would take minutes: done by a plain instance first.
    await (await startReferenceInstance({ startTimeoutMs: 240_000, env: { ...env, GATEHOUSE_FRAMEWORK: gatehouse[0] ?? 'fastify' }, script: [REFERENCE_MAIN(root), 'serve'] })).stop()
  }
  const startInstance = (instance: Parameters<typeof startReferenceInstance>[0]): Promise<Instance> =>
    startReferenceInstance({ ...instance, ...(wrapper === undefined ? {} : { wrapper, startTimeoutMs: 900_000 }) })
  // Under valgrind, bundles (no TypeScript to compile at start-up); the same code.
  const reference = wrapper === undefined ? REFERENCE_MAIN(root) : await bundleForCallgrind(REFERENCE_MAIN(root), 'reference-api')
  const hand = wrapper === undefined ? join(import.meta.dirname, 'hand-written-server.ts') : await bundleForCallgrind(join(import.meta.dirname, 'hand-written-server.ts'), 'hand-written-server')
  // The first instance migrates and seeds; the others find it done.
  for (const framework of gatehouse) {
    servers.push({ name: `gatehouse ${framework}`, instance: await startInstance({ startTimeoutMs: 240_000, env: { ...env, GATEHOUSE_FRAMEWORK: framework }, script: [...probe, reference, 'serve'] }) })
  }
  for (const variant of options.variants) {
    servers.push({ name: `gatehouse ${variant.name}`, instance: await startInstance({ startTimeoutMs: 240_000, env: { ...env, ...variant.env }, script: [...probe, REFERENCE_MAIN(root), 'serve'] }) })
  }
  // The same servers again through the pooler, once they have migrated and seeded the database directly.
  if (options.pooler !== null && database.name === 'postgres') {
    for (const flag of options.poolerFlags) {
      const url = poolerUrl(database.url, options.pooler, flag === 'on')
      const via = flag === 'on' ? 'via pooler' : 'via pooler, no ?pgbouncer'
      for (const framework of gatehouse) {
        servers.push({ name: `gatehouse ${framework} ${via}`, instance: await startInstance({ startTimeoutMs: 240_000, env: { ...env, DATABASE_URL: url, GATEHOUSE_FRAMEWORK: framework }, script: [...probe, REFERENCE_MAIN(root), 'serve'] }) })
      }
      for (const variant of options.variants) {
        servers.push({ name: `gatehouse ${variant.name} ${via}`, instance: await startInstance({ startTimeoutMs: 240_000, env: { ...env, ...variant.env, DATABASE_URL: url }, script: [...probe, REFERENCE_MAIN(root), 'serve'] }) })
      }
    }
  }
  for (const other of options.before) {
    servers.push({ name: other.name, instance: await startInstance({ startTimeoutMs: 240_000, env, root: other.root, script: [...probe, REFERENCE_MAIN(other.root), 'serve'] }) })
  }
  if (options.servers.includes('plain')) {
    if (servers.length === 0) throw new Error('the plain stack needs a gatehouse server first (it seeds the database)')
    servers.push({ name: 'fastify + @fastify/auth + kysely', instance: await startInstance({ startTimeoutMs: 240_000, env, script: [...probe, join(import.meta.dirname, 'plain-stack-server.ts')] }) })
  }
  if (options.servers.includes('hand-express')) {
    if (servers.length === 0) throw new Error('the baseline needs a gatehouse server first (it seeds the database)')
    servers.unshift({ name: 'hand-written express', instance: await startInstance({ startTimeoutMs: 240_000, env, script: [...probe, hand, '--framework', 'express'] }) })
  }
  if (options.servers.includes('hand')) {
    if (servers.length === 0) throw new Error('the baseline needs a gatehouse server first (it seeds the database)')
    servers.unshift({ name: 'hand-written', instance: await startInstance({ startTimeoutMs: 240_000, env, script: [...probe, hand] }) })
  }
  return servers
}

/** `databaseUrl` (the fresh database) served through the pooler at `pooler`: its scheme, credentials, host and port, the database's name and query. */
function poolerUrl(databaseUrl: string, pooler: string, flag: boolean): string {
  const through = new URL(databaseUrl)
  const at = new URL(pooler)
  through.protocol = at.protocol
  through.username = at.username
  through.password = at.password
  through.host = at.host
  if (flag) through.searchParams.set('pgbouncer', 'true')
  return through.toString()
}

/** How many of a server's log lines so far warn about a transaction pooler (the pool's fallback). */
function poolerWarnings(server: Server): number {
  return server.instance.output().match(/a transaction pooler such as PgBouncer is between/g)?.length ?? 0
}

/** What a server logged about its failed answers since `from` (a 503's store fault, a 500), each distinct line with its count. */
function failureReasons(server: Server, from: number): string {
  const counts = new Map<string, number>()
  for (const line of server.instance.output().slice(from).split('\n')) {
    if (!/^gatehouse: 503 |server error|unhandled/i.test(line)) continue
    const reason = line.replace(/^gatehouse: 503 \S+ \S+: /, '503: ').slice(0, 200)
    counts.set(reason, (counts.get(reason) ?? 0) + 1)
  }
  if (counts.size === 0) {
    // Nothing recognised (a status gatehouse does not log): the server's last lines instead.
    const tail = server.instance.output().slice(from).trim().split('\n').slice(-5)
    return tail[0] === '' ? '  (the server logged nothing)' : tail.map((line) => `  ${line.slice(0, 200)}`).join('\n')
  }
  return [...counts].map(([reason, n]) => `  ${n} × ${reason}`).join('\n')
}

/** Every server's answer must be the baseline's (the first server's), ports masked. */
async function checkSameAnswer(servers: readonly Server[], path: string): Promise<void> {
  const bodies = await Promise.all(
    servers.map(async (s) => {
      const res = await fetch(`${s.instance.baseUrl}${path}`, { headers: { Authorization: `Token ${BOB_TOKEN}`, Accept: 'application/json' } })
      return { name: s.name, status: res.status, body: (await res.text()).replaceAll(`:${s.instance.port}/`, ':<port>/') }
    }),
  )
  const [first] = bodies
  for (const b of bodies) {
    if (b.status !== 200 || b.body !== first?.body) {
      throw new Error(`${b.name} answered differently (${b.status}):\n${b.body.slice(0, 400)}\nbaseline:\n${first?.body.slice(0, 400)}`)
    }
  }
}

/** Opens or closes the probe's window in `server` and waits for its line. */
async function probe(server: Server, pattern: RegExp): Promise<string> {
  const seen = server.instance.output().length
  server.instance.child.kill('SIGUSR2')
  for (let i = 0; i < 600; i++) {
    const match = pattern.exec(server.instance.output().slice(seen))
    if (match !== null) return match[1] ?? match[0]
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`${server.name}: no answer from alloc-probe`)
}

interface AllocSample {
  server: string
  bytesPerRequest: number
  promisesPerRequest: number | null
  nodeCpuMsPerRequest: number
}

/** `count` sequential requests (one keep-alive connection) inside a probe window: per request bytes, promises and node CPU. */
async function allocOf(server: Server, path: string, count: number): Promise<{ bytes: number; promises: number; cpuMs: number }> {
  const url = `${server.instance.baseUrl}${path}`
  const headers = { Authorization: `Token ${BOB_TOKEN}`, Accept: 'application/json' }
  for (let i = 0; i < Math.min(500, count); i++) await (await fetch(url, { headers })).arrayBuffer()
  await probe(server, /alloc-probe open/)
  const ticks = processTicks(server.instance.child.pid ?? 0)
  for (let i = 0; i < count; i++) {
    const res = await fetch(url, { headers })
    await res.arrayBuffer()
    if (res.status !== 200) throw new Error(`${server.name}: ${res.status}`)
  }
  const cpuMs = ((processTicks(server.instance.child.pid ?? 0) - ticks) * 1000) / CLOCK_TICKS / count
  const line = JSON.parse(await probe(server, /alloc-probe (\{.*\})/)) as { bytes: number; promises: number }
  return { bytes: line.bytes / count, promises: line.promises / count, cpuMs }
}

async function runAlloc(options: Options, db: 'sqlite' | 'postgres'): Promise<{ db: string; samples: AllocSample[] }> {
  const count = options.alloc ?? 2000
  const samples: AllocSample[] = []
  // Bytes and CPU in one set of processes; promises (the hook slows everything) in a second.
  for (const promises of [false, true]) {
    const database = db === 'sqlite' ? freshSqlite() : await freshPostgres()
    const servers: Server[] = []
    try {
      servers.push(...(await startServers(options, database, promises)))
      await checkSameAnswer(servers, options.path)
      for (let round = 0; round < (promises ? 1 : options.rounds); round++) {
        for (const s of round % 2 === 0 ? servers : [...servers].reverse()) {
          const m = await allocOf(s, options.path, promises ? Math.min(count, 500) : count)
          if (promises) {
            for (const sample of samples.filter((x) => x.server === s.name)) sample.promisesPerRequest = m.promises
          } else samples.push({ server: s.name, bytesPerRequest: m.bytes, promisesPerRequest: null, nodeCpuMsPerRequest: m.cpuMs })
          process.stderr.write(`${db} ${promises ? 'promises' : `round ${round + 1}`} ${s.name}: ${promises ? `${m.promises.toFixed(1)} promises` : `${m.bytes.toFixed(0)} bytes, ${m.cpuMs.toFixed(3)} ms CPU`} per request\n`)
        }
      }
    } finally {
      await Promise.all(servers.map((s) => s.instance.stop()))
      await database.drop()
    }
  }
  return { db, samples }
}

function allocReport(db: string, samples: readonly AllocSample[], options: Options): string {
  const names = [...new Set(samples.map((s) => s.server))]
  const of = (name: string): AllocSample[] => samples.filter((s) => s.server === name)
  const handBytes = median(of('hand-written').map((s) => s.bytesPerRequest))
  const lines = [
    `### ${db === 'postgres' ? 'PostgreSQL' : 'SQLite'}: \`GET ${options.path}\`, ${options.alloc} sequential requests per run, whole server process, median of ${options.rounds}`,
    '',
    '| server | bytes allocated / request | × hand-written | promises / request | node CPU ms/req (sequential) |',
    '|---|---|---|---|---|',
  ]
  for (const name of names) {
    const rows = of(name)
    const bytes = median(rows.map((s) => s.bytesPerRequest))
    lines.push(`| ${name} | ${bytes.toFixed(0)} | ${handBytes > 0 ? (bytes / handBytes).toFixed(2) : '–'} | ${rows[0]?.promisesPerRequest?.toFixed(1) ?? '–'} | ${median(rows.map((s) => s.nodeCpuMsPerRequest)).toFixed(3)} |`)
  }
  return lines.join('\n')
}

interface CallgrindSample {
  server: string
  instructionsPerRequest: number
  idleInstructionsPerRequest: number
}

/** `count` sequential requests on one keep-alive connection; throws on a non-200. */
async function sequential(server: Server, path: string, count: number): Promise<void> {
  const url = `${server.instance.baseUrl}${path}`
  const headers = { Authorization: `Token ${BOB_TOKEN}`, Accept: 'application/json' }
  for (let i = 0; i < count; i++) {
    const res = await fetch(url, { headers })
    await res.arrayBuffer()
    if (res.status !== 200) throw new Error(`${server.name}: ${res.status}`)
  }
}

/** How long the idle window of a callgrind round lasts (its rate is scaled to the busy window's length). */
const IDLE_MS = 3000

/**
 * Every server under callgrind: per round and server, the instructions of `count` sequential
 * requests, less what the process does idle for as long (timers, the pool's housekeeping), per request.
 */
async function runCallgrind(options: Options, db: 'sqlite' | 'postgres'): Promise<{ db: string; samples: CallgrindSample[] }> {
  const count = options.callgrind ?? 500
  const tag = `sbs-${process.pid}-${db}`
  const database = db === 'sqlite' ? freshSqlite() : await freshPostgres()
  const servers: Server[] = []
  const samples: CallgrindSample[] = []
  try {
    servers.push(...(await startServers(options, database, false, callgrindCommand(tag))))
    await checkSameAnswer(servers, options.path)
    // Warm-up uninstrumented: V8 compiles the hot paths before any window opens.
    for (const s of servers) await sequential(s, options.path, Math.max(2000, 2 * count))
    for (let round = 0; round < options.rounds; round++) {
      for (const s of round % 2 === 0 ? servers : [...servers].reverse()) {
        const pid = s.instance.child.pid ?? 0
        // The idle rate first: after the busy window, V8's background compilation and GC of its requests would count as idle.
        const idleRate = (await instructionsOver(tag, pid, () => new Promise((resolve) => setTimeout(resolve, IDLE_MS)))) / IDLE_MS
        const started = performance.now()
        const busy = await instructionsOver(tag, pid, () => sequential(s, options.path, count))
        const idle = idleRate * (performance.now() - started)
        const sample = { server: s.name, instructionsPerRequest: (busy - idle) / count, idleInstructionsPerRequest: idle / count }
        samples.push(sample)
        process.stderr.write(`${db} round ${round + 1} ${s.name}: ${Math.round(sample.instructionsPerRequest)} instructions/request (idle ${Math.round(sample.idleInstructionsPerRequest)} subtracted)\n`)
      }
    }
  } finally {
    await Promise.all(servers.map((s) => s.instance.stop()))
    await database.drop()
  }
  return { db, samples }
}

function callgrindReport(db: string, samples: readonly CallgrindSample[], options: Options): string {
  const names = [...new Set(samples.map((s) => s.server))]
  const of = (name: string): number => median(samples.filter((s) => s.server === name).map((s) => s.instructionsPerRequest))
  const baselines = names.filter((n) => n.startsWith('hand-written'))
  const lines = [
    `### ${db === 'postgres' ? 'PostgreSQL' : 'SQLite'}: \`GET ${options.path}\`, token auth, ${options.callgrind} sequential requests per window under callgrind, server process instructions per request (idle window subtracted), median of ${options.rounds}`,
    '',
    `| server | instructions / request |${baselines.map((b) => ` × ${b} |`).join('')}`,
    `|---|---|${baselines.map(() => '---|').join('')}`,
  ]
  for (const name of names) lines.push(`| ${name} | ${Math.round(of(name)).toLocaleString('en-US')} |${baselines.map((b) => ` ${(of(name) / of(b)).toFixed(2)} |`).join('')}`)
  return lines.join('\n')
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2
}

async function runDatabase(options: Options, db: 'sqlite' | 'postgres'): Promise<{ db: string; samples: Sample[] }> {
  const database = db === 'sqlite' ? freshSqlite() : await freshPostgres()
  const servers: Server[] = []
  try {
    servers.push(...(await startServers(options, database)))
    await checkSameAnswer(servers, options.path)
    process.stderr.write(`${db}: ${servers.length} servers answer alike; warming up\n`)
    const length: LoadLength = options.requests === null ? { seconds: options.duration } : { requests: options.requests }
    const warmupNon2xx = new Map<string, number>()
    for (const s of servers) {
      const logged = s.instance.output().length
      const warm = await load(`${s.instance.baseUrl}${options.path}`, options.connections, options.requests === null ? { seconds: 3 } : { requests: Math.ceil(options.requests / 4) })
      warmupNon2xx.set(s.name, warm.non2xx + warm.errors)
      if (warm.non2xx + warm.errors > 0) process.stderr.write(`${db} warm-up ${s.name}: ${warm.non2xx} non-2xx, ${warm.errors} socket errors\n${failureReasons(s, logged)}\n`)
    }
    const samples: Sample[] = []
    for (let round = 0; round < options.rounds; round++) {
      // Alternate the order each round, so no server always runs first or last.
      const order = round % 2 === 0 ? servers : [...servers].reverse()
      for (const s of order) {
        const pid = s.instance.child.pid ?? 0
        const logged = s.instance.output().length
        const nodeBefore = processTicks(pid)
        const pgBefore = db === 'postgres' ? postgresTicks() : new Map<number, number>()
        const poolerBefore = options.pooler !== null && db === 'postgres' ? postgresTicks('pgbouncer') : null
        const result = await load(`${s.instance.baseUrl}${options.path}`, options.connections, length)
        const nodeTicks = processTicks(pid) - nodeBefore
        const pgTicks = db === 'postgres' ? ticksDelta(pgBefore, postgresTicks()) : 0
        const poolerTicks = poolerBefore === null ? null : ticksDelta(poolerBefore, postgresTicks('pgbouncer'))
        const perRequest = (ticks: number): number => (ticks * 1000) / CLOCK_TICKS / Math.max(1, result.requests)
        const sample: Sample = {
          server: s.name,
          ...result,
          nodeCpuMsPerRequest: perRequest(nodeTicks),
          dbCpuMsPerRequest: db === 'postgres' ? perRequest(pgTicks) : null,
          poolerCpuMsPerRequest: poolerTicks === null ? null : perRequest(poolerTicks),
          warmupNon2xx: warmupNon2xx.get(s.name) ?? 0,
          poolerWarnings: poolerWarnings(s),
        }
        samples.push(sample)
        process.stderr.write(
          `${db} round ${round + 1} ${s.name}: ${result.requests} requests, ${result.non2xx} non-2xx, ${result.errors} socket errors, ${result.rps.toFixed(0)} req/s (${result.tool}), p99 ${result.p99ms.toFixed(2)} ms, node CPU ${sample.nodeCpuMsPerRequest.toFixed(3)} ms/req\n`,
        )
        if (result.non2xx + result.errors > 0) process.stderr.write(`${failureReasons(s, logged)}\n`)
      }
    }
    return { db, samples }
  } finally {
    await Promise.all(servers.map((s) => s.instance.stop()))
    await database.drop()
  }
}

function report(db: string, samples: readonly Sample[], options: Options): string {
  const names = [...new Set(samples.map((s) => s.server))]
  const of = (name: string): Sample[] => samples.filter((s) => s.server === name)
  const baseline = median(of('hand-written').map((s) => s.rps))
  const fmt = (v: number | null, digits = 2): string => (v === null || Number.isNaN(v) ? '–' : v.toFixed(digits))
  const pooled = samples.some((s) => s.poolerCpuMsPerRequest !== null)
  const lines = [
    `### ${db === 'postgres' ? 'PostgreSQL' : 'SQLite'}: \`GET ${options.path}\`, token auth, ${samples[0]?.tool ?? 'wrk'} -c${options.connections} ${options.requests === null ? `-d${options.duration}s` : `${options.requests} requests`} per run, median of ${options.rounds} rounds`,
    '',
    `| server | req/s | × hand-written | p50 ms | p99 ms | node CPU ms/req | DB CPU ms/req |${pooled ? ' pooler CPU ms/req | requests | non-2xx (warm-up + runs) | pooler warnings |' : ''}`,
    `|---|---|---|---|---|---|---|${pooled ? '---|---|---|---|' : ''}`,
  ]
  for (const name of names) {
    const rows = of(name)
    const rps = median(rows.map((s) => s.rps))
    const dbCpu = rows[0]?.dbCpuMsPerRequest === null ? null : median(rows.map((s) => s.dbCpuMsPerRequest ?? 0))
    const poolerCpu = rows[0]?.poolerCpuMsPerRequest === null ? null : median(rows.map((s) => s.poolerCpuMsPerRequest ?? 0))
    const failed = (rows[0]?.warmupNon2xx ?? 0) + rows.reduce((sum, s) => sum + s.non2xx + s.errors, 0)
    const extra = pooled
      ? ` ${fmt(poolerCpu, 3)} | ${rows.reduce((sum, s) => sum + s.requests, 0)} | ${failed} | ${rows.at(-1)?.poolerWarnings ?? 0} |`
      : ''
    lines.push(
      `| ${name} | ${fmt(rps, 0)} | ${baseline > 0 ? fmt(rps / baseline) : '–'} | ${fmt(median(rows.map((s) => s.p50ms)))} | ${fmt(median(rows.map((s) => s.p99ms)))} | ${fmt(median(rows.map((s) => s.nodeCpuMsPerRequest)), 3)} | ${fmt(dbCpu, 3)} |${extra}`,
    )
  }
  return lines.join('\n')
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2))
  if (options.callgrind !== null) {
    const cgResults: { db: string; samples: CallgrindSample[] }[] = []
    for (const db of options.dbs) cgResults.push(await runCallgrind(options, db))
    const text = cgResults.map((r) => callgrindReport(r.db, r.samples, options)).join('\n\n')
    console.log(`${text}\n`)
    if (options.json !== null) {
      writeFileSync(options.json, JSON.stringify({ options, results: cgResults }, null, 2))
      writeFileSync(options.json.replace(/\.json$/, '.md'), `${text}\n`)
    }
    return
  }
  if (options.alloc !== null) {
    const allocResults: { db: string; samples: AllocSample[] }[] = []
    for (const db of options.dbs) allocResults.push(await runAlloc(options, db))
    const text = allocResults.map((r) => allocReport(r.db, r.samples, options)).join('\n\n')
    console.log(`${text}\n`)
    if (options.json !== null) {
      writeFileSync(options.json, JSON.stringify({ options, results: allocResults }, null, 2))
      writeFileSync(options.json.replace(/\.json$/, '.md'), `${text}\n`)
    }
    return
  }
  const results: { db: string; samples: Sample[] }[] = []
  for (const db of options.dbs) results.push(await runDatabase(options, db))
  for (const r of results) console.log(`${report(r.db, r.samples, options)}\n`)
  if (options.json !== null) {
    writeFileSync(options.json, JSON.stringify({ options, results }, null, 2))
    writeFileSync(options.json.replace(/\.json$/, '.md'), `${results.map((r) => report(r.db, r.samples, options)).join('\n\n')}\n`)
  }
  // Counted rather than thrown at the first: the report shows every server's failures.
  const failures = results.flatMap((r) => r.samples).filter((s) => s.non2xx > 0 || s.errors > 0 || s.warmupNon2xx > 0)
  if (failures.length > 0) {
    for (const s of failures) console.error(`${s.server}: ${s.non2xx} non-2xx, ${s.errors} socket errors (warm-up: ${s.warmupNon2xx})`)
    process.exitCode = 1
  }
}

await main()
