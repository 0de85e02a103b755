/**
 * Instructions per request, a figure the machine's load and speed do not move (issue 40 item 3):
 * the hand-written baseline (`hand-written-server.ts`) and the reference API on Fastify serving
 * `GET /api/articles/?page=3` with token auth, each server under `valgrind --tool=callgrind`.
 *
 *   DATABASE_URL=postgres://… npx tsx bench/instructions.ts [--db sqlite|postgres|both] [--count 300]
 *     [--warmup 1500] [--rounds 2] [--servers hand,fastify] [--before name:/checkout/of/another/commit]…
 *     [--stages on|off] [--annotate 40] [--json out.json] [--path /api/articles/?page=3]
 *
 * Whole server: every server is bundled by esbuild (what a user runs is the tsc build, not tsx)
 * and started under callgrind with `--instr-atstart=no`; start-up and `--warmup` requests run
 * uninstrumented (V8 has optimised the hot path by then). A window is `callgrind_control -z`,
 * `-i on`, `--count` sequential requests over one keep-alive connection from this process (the
 * client is not counted), `-d`, `-i off`; the dump's total over the count is the figure, less
 * the server's idle rate (an instrumented window without requests, in instructions per ms) times
 * the window's length: under callgrind a window lasts ~100× longer than natively, and what a
 * server does by the clock (timers, V8's idle tasks) would otherwise count as per-request work.
 * Callgrind counts user-space instructions only; the kernel's side of a `writev` is not in it, so
 * the table also gives the bytes each answer puts on the wire (head and body).
 *
 * Stages: a child process under callgrind (the same bundle) runs each stage `--count` times in a
 * window of its own, on the same database, and reports instructions per call, less an empty
 * stage (the window's own messaging): the token lookup, authentication, permissions, throttles,
 * the count, the page's rows, pagination and links, serialisation and the whole core, for
 * gatehouse and for the baseline's equivalent (`hand-core.ts`), each as a share of the baseline
 * server's whole request. Whole request − whole core is the framework, the adapter and the write.
 *
 * `--annotate N` lists each server's N most expensive functions (self instructions per request),
 * JavaScript ones named from V8's `--perf-basic-prof` map: where a difference lives.
 *
 * `--servers` takes `hand` (the baseline on Fastify), `hand-express` (the same handler on Express),
 * `fastify` and `express` (the reference API on that framework); `--before` checkouts serve on
 * Fastify, or on Express in a run without `fastify`.
 *
 * `--before name:dir` bundles and serves the reference API of another checkout (e.g.
 * `git worktree add /tmp/before <commit>` with a `node_modules` link) beside this one.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { Agent, request as httpRequest } from 'node:http'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir, cpus } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
/** The measured request (`--path`; the stage table, `--stages on`, is for this default only). */
let PATH = '/api/articles/?page=3'
const BOB_TOKEN = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'
const HEADERS = { authorization: `Token ${BOB_TOKEN}`, accept: 'application/json' }

interface Options {
  dbs: ('sqlite' | 'postgres')[]
  count: number
  warmup: number
  rounds: number
  servers: string[]
  before: { name: string; root: string }[]
  stages: boolean
  annotate: number
  /** Calls per stage window. */
  stageCount: number
  json: string | null
}

function parseArgs(argv: readonly string[]): Options {
  const o: Options = { dbs: ['sqlite', 'postgres'], count: 300, warmup: 1500, rounds: 2, servers: ['hand', 'fastify'], before: [], stages: true, annotate: 0, stageCount: 2000, json: null }
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]]
    if (value === undefined) throw new Error(`missing value for ${flag}`)
    if (flag === '--db') o.dbs = value === 'both' ? ['sqlite', 'postgres'] : [value as 'sqlite' | 'postgres']
    else if (flag === '--count') o.count = Number(value)
    else if (flag === '--warmup') o.warmup = Number(value)
    else if (flag === '--rounds') o.rounds = Number(value)
    else if (flag === '--servers') o.servers = value.split(',').filter((s) => s !== '')
    else if (flag === '--before') {
      const colon = value.indexOf(':')
      o.before.push({ name: value.slice(0, colon), root: resolve(value.slice(colon + 1)) })
    } else if (flag === '--stages') o.stages = value === 'on'
    else if (flag === '--annotate') o.annotate = Number(value)
    else if (flag === '--stage-count') o.stageCount = Number(value)
    else if (flag === '--json') o.json = value
    else if (flag === '--path') PATH = value
    else throw new Error(`unknown option ${flag}`)
  }
  return o
}

// ---------------------------------------------------------------------------------------------
// Bundles

/** esbuild bundles of a checkout's server entries, in its gitignored `tmp/` (externals resolve from its node_modules). */
async function bundle(root: string, entries: readonly string[]): Promise<string> {
  const { build } = await import('esbuild')
  const outdir = join(root, 'tmp', 'instructions-bundle')
  await build({
    absWorkingDir: root,
    entryPoints: entries.map((e) => join(root, e)),
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outdir,
    outbase: root,
    outExtension: { '.js': '.mjs' },
    tsconfig: join(root, 'tsconfig.json'),
    logLevel: 'warning',
  })
  return outdir
}

// ---------------------------------------------------------------------------------------------
// Servers under callgrind

interface Running {
  readonly name: string
  readonly proc: ChildProcess
  readonly port: number
  readonly agent: Agent
  readonly dumpBase: string
  output(): string
}

let dumpSerial = 0

/** `node script args` under callgrind, instrumentation off until a window; resolves once it prints its port. */
async function startUnderCallgrind(name: string, script: string, args: readonly string[], env: Record<string, string | undefined>, annotate: boolean): Promise<Running> {
  const dumpBase = join(tmpdir(), `gatehouse-instructions.${process.pid}.${dumpSerial++}.callgrind`)
  const nodeFlags = annotate ? ['--perf-basic-prof', '--no-compact-code-space'] : []
  const merged: Record<string, string> = {}
  for (const [k, v] of Object.entries({ ...process.env, ...env })) if (v !== undefined) merged[k] = v
  const proc = spawn(
    'valgrind',
    ['--tool=callgrind', '--instr-atstart=no', '--separate-threads=yes', '--compress-strings=no', '--compress-pos=no', `--callgrind-out-file=${dumpBase}`, process.execPath, ...nodeFlags, script, ...args],
    { cwd: dirname(script), env: merged, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] },
  )
  let output = ''
  proc.stdout?.setEncoding('utf8').on('data', (c: string) => (output += c))
  proc.stderr?.setEncoding('utf8').on('data', (c: string) => (output += c))
  const port = await new Promise<number>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`${name} did not start:\n${output}`)), 600_000)
    const onData = (): void => {
      const match = /listening on http:\/\/[^\s]*:(\d+)/.exec(output)
      if (match?.[1] === undefined) return
      clearTimeout(timer)
      proc.stdout?.off('data', onData)
      ok(Number(match[1]))
    }
    proc.stdout?.on('data', onData)
    proc.once('exit', (code) => {
      clearTimeout(timer)
      fail(new Error(`${name} exited (${code}) before listening:\n${output}`))
    })
  })
  return { name, proc, port, agent: new Agent({ keepAlive: true, maxSockets: 1, keepAliveMsecs: 600_000 }), dumpBase, output: () => output }
}

/** Runs `callgrind_control <args> <pid>`. */
function control(pid: number, args: readonly string[]): Promise<void> {
  return new Promise((ok, fail) => {
    const proc = spawn('callgrind_control', [...args, String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] })
    let err = ''
    proc.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')))
    proc.once('error', fail)
    proc.once('exit', (code) => (code === 0 ? ok() : fail(new Error(`callgrind_control ${args.join(' ')} ${pid}: exit ${code} ${err}`))))
  })
}

/**
 * The newest dump of a process: with `--separate-threads=yes` one file per thread,
 * `<base>.<n>-<thread>` (thread 01 is the main thread, where the server's JavaScript runs; the
 * others are V8's and libuv's helpers: concurrent compilation and marking). Every dump is then removed.
 */
function takeDump(base: string, pid: number): { main: string; all: number } {
  const dir = dirname(base)
  const prefix = `${basename(base)}.`
  const files = readdirSync(dir)
    .filter((n) => n.startsWith(prefix))
    .map((n) => ({ n, m: /^(\d+)-(\d+)$/.exec(n.slice(prefix.length)) }))
    .filter((f): f is { n: string; m: RegExpExecArray } => f.m !== null)
  const newest = Math.max(...files.map((f) => Number(f.m[1])))
  const ofNewest = files.filter((f) => Number(f.m[1]) === newest)
  const main = ofNewest.find((f) => Number(f.m[2]) === 1)
  if (main === undefined) throw new Error(`no callgrind dump for ${base} (pid ${pid})`)
  const text = readFileSync(join(dir, main.n), 'utf8')
  let all = 0
  for (const f of ofNewest) all += dumpTotal(readFileSync(join(dir, f.n), 'utf8'))
  for (const f of files) rmSync(join(dir, f.n), { force: true })
  return { main: text, all }
}

function dumpTotal(text: string): number {
  const match = /^(?:totals|summary):\s*(\d+)/m.exec(text)
  if (match === null) throw new Error('no instruction total in a callgrind dump')
  return Number(match[1])
}

/**
 * One GET over the server's keep-alive connection: status, head bytes, body. A connection the
 * server closed while idle (its keep-alive timeout passed during the other server's window) is
 * replaced once, as Node's documentation advises for a reused socket.
 */
async function get(server: Running): Promise<{ status: number; headBytes: number; body: string }> {
  try {
    return await getOnce(server)
  } catch (error) {
    if ((error as { code?: string }).code !== 'ECONNRESET') throw error
    return getOnce(server)
  }
}

function getOnce(server: Running): Promise<{ status: number; headBytes: number; body: string }> {
  return new Promise((ok, fail) => {
    const req = httpRequest({ host: '127.0.0.1', port: server.port, path: PATH, agent: server.agent, headers: { ...HEADERS, host: `127.0.0.1:${server.port}` } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        // The head as sent: status line, each header line, the blank line.
        let headBytes = `HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\n`.length + 2
        for (let i = 0; i < res.rawHeaders.length; i += 2) headBytes += `${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}\r\n`.length
        ok({ status: res.statusCode ?? 0, headBytes, body: Buffer.concat(chunks).toString('utf8') })
      })
    })
    req.on('error', fail)
    req.end()
  })
}

async function drive(server: Running, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await get(server)
    if (res.status !== 200) throw new Error(`${server.name}: ${res.status} ${res.body.slice(0, 200)}`)
  }
}

/** Instructions of one instrumented window around `work`, and its length in ms. */
async function windowOf(server: { proc: ChildProcess; dumpBase: string }, work: () => Promise<void>): Promise<{ ir: number; all: number; ms: number; dump: string }> {
  const pid = server.proc.pid as number
  await control(pid, ['-z'])
  await control(pid, ['-i', 'on'])
  const start = performance.now()
  await work()
  const ms = performance.now() - start
  await control(pid, ['-d'])
  await control(pid, ['-i', 'off'])
  const dump = takeDump(server.dumpBase, pid)
  return { ir: dumpTotal(dump.main), all: dump.all, ms, dump: dump.main }
}

// ---------------------------------------------------------------------------------------------
// Annotation: self instructions per function, JavaScript named from the perf map

interface PerfSymbol {
  start: number
  end: number
  name: string
}

function perfMap(pid: number): PerfSymbol[] {
  const file = `/tmp/perf-${pid}.map`
  if (!existsSync(file)) return []
  const out: PerfSymbol[] = []
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line)
    if (m === null) continue
    const start = parseInt(m[1] ?? '0', 16)
    out.push({ start, end: start + parseInt(m[2] ?? '0', 16), name: m[3] ?? '' })
  }
  return out.sort((a, b) => a.start - b.start)
}

function symbolAt(map: readonly PerfSymbol[], address: number): string | null {
  let lo = 0
  let hi = map.length - 1
  let best: PerfSymbol | null = null
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const s = map[mid] as PerfSymbol
    if (s.start <= address) {
      best = s
      lo = mid + 1
    } else hi = mid - 1
  }
  return best !== null && address < best.end ? best.name : null
}

/** Self instructions by function name in a dump (`--compress-strings=no --compress-pos=no`). */
function selfCosts(dump: string, map: readonly PerfSymbol[]): Map<string, number> {
  const costs = new Map<string, number>()
  let fn = '?'
  let afterCalls = false
  for (const line of dump.split('\n')) {
    if (line.startsWith('fn=')) {
      const raw = line.slice(3)
      const address = /^0x([0-9a-f]+)$/i.exec(raw)
      fn = address === null ? raw : (symbolAt(map, parseInt(address[1] ?? '0', 16)) ?? '(unnamed code)')
      afterCalls = false
    } else if (line.startsWith('calls=')) afterCalls = true
    else if (/^[+-]?\d/.test(line)) {
      if (afterCalls) {
        afterCalls = false
        continue
      }
      const parts = line.trim().split(/\s+/)
      const ir = Number(parts[1] ?? 0)
      costs.set(fn, (costs.get(fn) ?? 0) + ir)
    }
  }
  return costs
}

// ---------------------------------------------------------------------------------------------
// Stages (the child side runs in the bundle under callgrind)

/** Runs in the stage child: builds the stages, then runs each on the parent's word. */
async function stageChild(databaseUrl: string, count: number): Promise<void> {
  const { openReferenceContext } = await import('../examples/reference-api/context.js')
  const { articleRoutes, articleSources } = await import('../examples/reference-api/routes/articles.js')
  const { ArrayPageSource, PageNumberPagination } = await import('../src/index.js')
  const { createApiRequest } = await import('../src/core/request/request-factory.js')
  const { serializeBody } = await import('../src/core/api-response.js')
  const { handHandle, handQueries } = await import('./hand-core.js')
  // Under callgrind a statement takes ~100× longer: waits lengthened as for the servers.
  const ref = await openReferenceContext({ databaseUrl, scrypt: { N: 1024, r: 8, p: 1 }, dbTimeoutMs: 600_000 })
  const q = await handQueries(databaseUrl)
  const host = '127.0.0.1:8000'
  const headers: Record<string, string> = { host, ...HEADERS }
  const apiRequest = () =>
    createApiRequest({ method: 'GET', url: new URL(PATH, `http://${host}`), headers: { get: (n) => headers[n.toLowerCase()] ?? null }, remoteAddress: '127.0.0.1', readBody: async () => null })
  const list = articleRoutes(ref).find((r) => r.path === '/api/articles/')
  if (list === undefined) throw new Error('no /api/articles/ route')
  const { view } = list
  const req = apiRequest()
  const findWithUser = ref.tokens.findWithUser?.bind(ref.tokens)
  if (findWithUser === undefined) throw new Error('the token store has no findWithUser')
  const passed = await view.policies.run(req)
  if (passed.context === null) throw new Error(`the policies refused the request: ${passed.response.status}`)
  const ctx = passed.context
  const source = articleSources(ref)
  const response = await view.handle(req)
  const paginator = new PageNumberPagination({ pageSize: 10 })
  const memory = new ArrayPageSource(await source(ctx).slice(0, 137))
  const handBody = await handHandle(q, `Token ${BOB_TOKEN}`, host, '3')
  if (serializeBody(await view.handle(apiRequest())) !== handBody) throw new Error('gatehouse and the baseline answer differently')
  const rows = (await q.page(20)) as { created: Date | string }[]
  const { formatCreated } = await import('../examples/reference-api/routes/articles.js')
  const { settings } = view.policies
  const stages: Record<string, () => unknown> = {
    'empty (subtracted)': () => undefined,
    'gatehouse: token lookup (digest + token⋈user)': () => findWithUser(BOB_TOKEN),
    'gatehouse: authentication (header, lookup, checks)': () => ref.schemes.token.authenticate(req),
    'gatehouse: permissions': () => settings.permissions.map((p) => p.hasPermission(ctx)),
    'gatehouse: throttles': () => settings.throttles.map((t) => t.check(ctx)),
    'gatehouse: policies (host, authentication, permissions, throttles)': () => view.policies.run(req),
    'gatehouse: count': () => source(ctx).count(),
    'gatehouse: rows (page of 10)': () => source(ctx).slice(20, 10),
    'gatehouse: pagination + links (no SQL)': () => {
      const page = paginator.paginate(memory, req)
      return page instanceof Promise ? page.then((p) => p !== null && paginator.paginatedResponse(p, p.items)) : page !== null && paginator.paginatedResponse(page, page.items)
    },
    'gatehouse: request (createApiRequest)': () => apiRequest(),
    'gatehouse: serialisation (body to JSON)': () => serializeBody(response),
    'gatehouse: whole core (request, handle, serialise)': () => {
      const answer = view.handle(apiRequest())
      return answer instanceof Promise ? answer.then(serializeBody) : serializeBody(answer)
    },
    'hand-written: token lookup (digest + token⋈user)': () => q.token(createHash('sha256').update(BOB_TOKEN).digest('hex')),
    'hand-written: count': () => q.count(),
    'hand-written: rows (page of 10)': () => q.page(20),
    'hand-written: serialisation (rows mapped, formatCreated, JSON)': () =>
      JSON.stringify({ count: 137, next: 'x', previous: 'y', results: rows.map((r) => ({ ...r, created: formatCreated(r.created) })) }),
    'hand-written: whole core (handler body)': () => handHandle(q, `Token ${BOB_TOKEN}`, host, '3'),
  }
  const settle = async (value: unknown): Promise<void> => {
    if (value instanceof Promise) await value
  }
  // Warm every stage first: V8 optimises before anything is counted.
  for (const fn of Object.values(stages)) for (let i = 0; i < 1000; i++) await settle(fn())
  process.on('message', (message: { stage: string }) => {
    const fn = stages[message.stage]
    if (fn === undefined) return
    void (async () => {
      // Synchronous stages stay synchronous: no await adds a microtask turn to them.
      for (let i = 0; i < count; i++) {
        const value = fn()
        if (value instanceof Promise) await value
      }
      process.send?.({ done: message.stage })
    })()
  })
  process.send?.({ stages: Object.keys(stages) })
  void ref
}

async function measureStages(bundled: string, databaseUrl: string, count: number, repeats: number): Promise<Map<string, number>> {
  const dumpBase = join(tmpdir(), `gatehouse-instructions.${process.pid}.${dumpSerial++}.callgrind`)
  const proc = spawn('valgrind', ['--tool=callgrind', '--instr-atstart=no', '--separate-threads=yes', `--callgrind-out-file=${dumpBase}`, process.execPath, bundled, '--stage-child', databaseUrl, String(count)], {
    cwd: dirname(bundled),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  try {
    const names = await new Promise<string[]>((ok, fail) => {
      proc.once('message', (m: { stages: string[] }) => ok(m.stages))
      proc.once('exit', (code) => fail(new Error(`stage child exited (${code})`)))
    })
    const out = new Map<string, number>()
    const samples = new Map<string, number[]>()
    // A child that dies mid-window (a failed statement) fails the run instead of leaving it waiting.
    const died = new Promise<never>((_ok, fail) => proc.once('exit', (code) => fail(new Error(`stage child exited (${code})`))))
    died.catch(() => undefined)
    for (let rep = 0; rep < repeats; rep++) for (const name of names) {
      const { ir } = await windowOf({ proc, dumpBase }, () => {
        const done = new Promise<void>((ok) => {
          const onMessage = (m: { done?: string }): void => {
            if (m.done !== name) return
            proc.off('message', onMessage)
            ok()
          }
          proc.on('message', onMessage)
          proc.send({ stage: name })
        })
        return Promise.race([done, died])
      })
      samples.set(name, [...(samples.get(name) ?? []), ir / count])
      process.stderr.write(`  stage ${name}: ${(ir / count).toFixed(0)}\n`)
    }
    for (const [name, values] of samples) out.set(name, median(values))
    const empty = out.get('empty (subtracted)') ?? 0
    for (const [k, v] of out) out.set(k, v - empty)
    return out
  } finally {
    proc.kill('SIGKILL')
  }
}

// ---------------------------------------------------------------------------------------------
// The run

interface ServerFigures {
  name: string
  instructions: number[]
  /** Every thread's instructions per request (V8's background compiler and GC threads too). */
  allThreads: number[]
  idlePerRequest: number
  headBytes: number
  bodyBytes: number
  top: [string, number][]
}

async function runDatabase(options: Options, db: 'sqlite' | 'postgres', bundles: Map<string, string>): Promise<{ db: string; servers: ServerFigures[]; stages: Map<string, number> | null }> {
  const { freshPostgres, freshSqlite } = await import('../test/helpers/databases.js')
  const { openReferenceContext } = await import('../examples/reference-api/context.js')
  const database = db === 'sqlite' ? freshSqlite() : await freshPostgres({ prefix: 'gh_perf_' })
  // Migrated and seeded here, once, before any server starts.
  await (await openReferenceContext({ databaseUrl: database.url, scrypt: { N: 1024, r: 8, p: 1 } })).close()
  // Under callgrind a request takes ~100× longer: the pool's waits are lengthened so none answers 503.
  const env = { DATABASE_URL: database.url, REDIS_URL: undefined, LOG_LEVEL: undefined, GATEHOUSE_FRAMEWORK: 'fastify', GATEHOUSE_DB_TIMEOUT_MS: '600000' }
  const running: Running[] = []
  try {
    const here = bundles.get('.') as string
    const wanted: { name: string; script: string; args: string[]; framework: string }[] = []
    const hand = join(here, 'bench', 'hand-written-server.mjs')
    const referenceApi = (root: string): string => join(root, 'examples', 'reference-api', 'main.mjs')
    if (options.servers.includes('hand')) wanted.push({ name: 'hand-written', script: hand, args: ['--port', '0'], framework: 'fastify' })
    if (options.servers.includes('hand-express')) wanted.push({ name: 'hand-written express', script: hand, args: ['--port', '0', '--framework', 'express'], framework: 'express' })
    for (const framework of ['fastify', 'express'])
      if (options.servers.includes(framework)) wanted.push({ name: `gatehouse ${framework}`, script: referenceApi(here), args: ['serve', '--port', '0'], framework })
    // A checkout before a change serves on the framework of this run's first gatehouse server.
    const beforeFramework = options.servers.includes('fastify') || !options.servers.includes('express') ? 'fastify' : 'express'
    for (const b of options.before) wanted.push({ name: b.name, script: referenceApi(bundles.get(b.root) as string), args: ['serve', '--port', '0'], framework: beforeFramework })
    for (const w of wanted) {
      process.stderr.write(`${db}: starting ${w.name} under callgrind\n`)
      running.push(await startUnderCallgrind(w.name, w.script, w.args, { ...env, GATEHOUSE_FRAMEWORK: w.framework }, options.annotate > 0))
    }
    const figures: ServerFigures[] = []
    let reference: string | null = null
    for (const s of running) {
      const first = await get(s)
      const masked = first.body.replaceAll(`:${s.port}/`, ':<port>/')
      if (first.status !== 200 || (reference !== null && masked !== reference)) throw new Error(`${s.name} answered differently (${first.status}):\n${first.body.slice(0, 300)}`)
      reference ??= masked
      figures.push({ name: s.name, instructions: [], allThreads: [], idlePerRequest: 0, headBytes: first.headBytes, bodyBytes: Buffer.byteLength(first.body), top: [] })
    }
    await Promise.all(running.map((s) => drive(s, options.warmup)))
    process.stderr.write(`${db}: warmed up (${options.warmup} requests each)\n`)
    const windowMs = new Map<string, number[]>()
    for (let round = 0; round < options.rounds; round++) {
      for (const s of round % 2 === 0 ? running : [...running].reverse()) {
        // A fresh connection first (outside the window): the server may have closed the idle one.
        await get(s)
        const w = await windowOf(s, () => drive(s, options.count))
        const f = figures.find((x) => x.name === s.name) as ServerFigures
        f.instructions.push(w.ir / options.count)
        f.allThreads.push(w.all / options.count)
        windowMs.set(s.name, [...(windowMs.get(s.name) ?? []), w.ms])
        if (round === options.rounds - 1 && options.annotate > 0) {
          const costs = selfCosts(w.dump, perfMap(s.proc.pid as number))
          f.top = [...costs].sort((a, b) => b[1] - a[1]).slice(0, options.annotate).map(([n, ir]) => [n, ir / options.count])
        }
        process.stderr.write(`${db} round ${round + 1} ${s.name}: ${(w.ir / options.count).toFixed(0)} main-thread instructions per request, ${(w.all / options.count).toFixed(0)} all threads (${w.ms.toFixed(0)} ms)\n`)
      }
    }
    // The idle baseline: as long as a window, no request.
    for (const s of running) {
      const ms = median(windowMs.get(s.name) ?? [0])
      const idle = await windowOf(s, () => new Promise((ok) => setTimeout(ok, Math.min(ms, 30_000))))
      const f = figures.find((x) => x.name === s.name) as ServerFigures
      // Scaled to a request window's length: what the server does by the clock, not per request.
      f.idlePerRequest = ((idle.ir / idle.ms) * ms) / options.count
      process.stderr.write(`${db} ${s.name}: idle ${idle.ir} instructions in ${idle.ms.toFixed(0)} ms\n`)
    }
    let stages: Map<string, number> | null = null
    if (options.stages) stages = await measureStages(join(here, 'bench', 'instructions.mjs'), database.url, options.stageCount, 3)
    return { db, servers: figures, stages }
  } finally {
    for (const s of running) {
      s.agent.destroy()
      s.proc.kill('SIGTERM')
      const exited = s.proc.exitCode !== null || (await new Promise<boolean>((ok) => {
        const t = setTimeout(() => ok(false), 20_000)
        s.proc.once('exit', () => {
          clearTimeout(t)
          ok(true)
        })
      }))
      if (!exited) s.proc.kill('SIGKILL')
      for (const n of readdirSync(dirname(s.dumpBase))) if (n.startsWith(basename(s.dumpBase))) rmSync(join(dirname(s.dumpBase), n), { force: true })
      rmSync(`/tmp/perf-${s.proc.pid}.map`, { force: true })
    }
    await database.drop()
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2
}

function report(result: { db: string; servers: ServerFigures[]; stages: Map<string, number> | null }, options: Options): string {
  const title = result.db === 'postgres' ? 'PostgreSQL' : 'SQLite'
  const net = (f: ServerFigures): number => median(f.instructions) - f.idlePerRequest
  const hand = result.servers.find((f) => f.name === 'hand-written')
  // Without the Fastify baseline (an Express-only run), ratios are to the hand-written Express handler.
  const base = hand ?? result.servers.find((f) => f.name === 'hand-written express')
  const handNet = base === undefined ? null : net(base)
  const share = (v: number): string => (handNet === null ? '–' : `${((100 * v) / handNet).toFixed(1)} %`)
  const k = (v: number): string => `${(v / 1000).toFixed(1)} k`
  const lines = [
    `### ${title}: \`GET ${PATH}\`, token auth, user-space instructions per request (callgrind, ${options.count} sequential requests × ${options.rounds} rounds, median, less the idle rate over the window)`,
    '',
    `| server | main-thread instructions / request | × ${base?.name ?? 'hand-written'} | measured (before the idle rate is subtracted) | all threads (V8 compiler and GC helpers too), measured | answer bytes (head + body) |`,
    '|---|---|---|---|---|---|',
    ...result.servers.map((f) => `| ${f.name} | ${k(net(f))} | ${handNet === null ? '–' : (net(f) / handNet).toFixed(2)} | ${k(median(f.instructions))} | ${k(median(f.allThreads))} | ${f.headBytes} + ${f.bodyBytes} |`),
  ]
  if (result.stages !== null) {
    const fastify = result.servers.find((f) => f.name === 'gatehouse fastify')
    lines.push('', `| stage (in process, ${title}) | instructions / call | share of the hand-written server's request |`, '|---|---|---|')
    for (const [name, v] of result.stages) if (!name.startsWith('empty')) lines.push(`| ${name} | ${k(v)} | ${share(v)} |`)
    const gCore = result.stages.get('gatehouse: whole core (request, handle, serialise)')
    const hCore = result.stages.get('hand-written: whole core (handler body)')
    if (fastify !== undefined && gCore !== undefined) lines.push(`| gatehouse: Fastify, adapter, socket write (whole − core) | ${k(net(fastify) - gCore)} | ${share(net(fastify) - gCore)} |`)
    if (hand !== undefined && hCore !== undefined) lines.push(`| hand-written: Fastify, socket write (whole − core) | ${k(net(hand) - hCore)} | ${share(net(hand) - hCore)} |`)
  }
  for (const f of result.servers) {
    if (f.top.length === 0) continue
    lines.push('', `${f.name} (${title}), self instructions per request by function:`, '', '| function | instructions / request |', '|---|---|')
    for (const [name, ir] of f.top) lines.push(`| ${name.replaceAll('|', '\\|').slice(0, 120)} | ${ir.toFixed(0)} |`)
  }
  return lines.join('\n')
}

async function main(): Promise<void> {
  const stageAt = process.argv.indexOf('--stage-child')
  if (stageAt !== -1) {
    await stageChild(process.argv[stageAt + 1] ?? '', Number(process.argv[stageAt + 2]))
    return
  }
  const options = parseArgs(process.argv.slice(2))
  const bundles = new Map<string, string>()
  bundles.set('.', await bundle(ROOT, ['examples/reference-api/main.ts', 'bench/hand-written-server.ts', 'bench/instructions.ts']))
  for (const b of options.before) bundles.set(b.root, await bundle(b.root, ['examples/reference-api/main.ts']))
  const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, Node ${process.version}`
  const results = []
  for (const db of options.dbs) results.push(await runDatabase(options, db, bundles))
  const text = [`Machine: ${machine} (instruction counts do not depend on its speed or load).`, '', ...results.map((r) => `${report(r, options)}\n`)].join('\n')
  console.log(text)
  if (options.json !== null) {
    mkdirSync(dirname(options.json), { recursive: true })
    writeFileSync(options.json, JSON.stringify({ machine, options, results: results.map((r) => ({ ...r, stages: r.stages === null ? null : Object.fromEntries(r.stages) })) }, null, 2))
    writeFileSync(options.json.replace(/\.json$/, '.md'), `${text}\n`)
  }
}

await main()
