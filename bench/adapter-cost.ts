/**
 * What each adapter costs over a bare route of its own framework (issue 34 item 1), per request.
 *
 *   npx tsx bench/adapter-cost.ts [--count 2000] [--rounds 5] [--frameworks fastify,express,hono,node]
 *                                 [--instructions] [--json out.json]
 *
 * Per framework, two servers run side by side, each in a child process, both answering
 * `GET /api/thing/` with the same JSON body, byte for byte:
 * - `bare`: the route written plainly in that framework (Fastify `async () => body`, Express
 *   `res.json(body)`, Hono `c.json(body)`, node:http `writeHead` + `end(JSON.stringify(body))`);
 * - `gatehouse`: a view with `AllowAny`, no authentication, no throttle and a synchronous
 *   handler returning the same body, mounted by the adapter (`mountRoutes`; `router` on node:http).
 * Both Express apps disable `etag` and `x-powered-by`, as the reference API does (gatehouse sends
 * no ETag; Express's would cost the bare route a hash per request).
 *
 * The parent drives `--count` **sequential** requests over one keep-alive socket (a real TCP
 * connection on loopback, never an inject) per window, and the server process reports its own
 * figures for the window: node CPU µs (`process.cpuUsage`), bytes allocated on the V8 heap (heap
 * growth plus what every GC freed, from `v8.GCProfiler`) and promises created (an `async_hooks`
 * init counter, in a window of its own since hooks slow every promise). With `--instructions`,
 * `perf stat -e instructions:u -p <server>` counts the user-space instructions of each CPU window
 * too: the figure the machine's load does not move. Rounds alternate which server goes first; the
 * table gives medians, and `gatehouse − bare` is the median of the per-round differences (both
 * measured in the same round, under the same load). The load average is printed with the results.
 *
 * `core` is measured in this process: `createApiRequest` + `view.handle` + `wireResponse` on a
 * ready request, what every adapter calls. `adapter` = gatehouse − bare − core: the framework
 * translation itself (reading the request, writing the answer, the extra routing).
 */
import { fork, spawn, type ChildProcess } from 'node:child_process'
import { createServer, request as httpRequest, Agent, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createHook } from 'node:async_hooks'
import type { AddressInfo } from 'node:net'
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import v8 from 'node:v8'
import { AllowAny, createApi, jsonResponse, route, type ApiView } from '../src/index.js'
import { createApiRequest } from '../src/core/request/request-factory.js'
import { wireResponse } from '../src/core/sendable-response.js'

const FRAMEWORKS = ['fastify', 'express', 'hono', 'node'] as const
type Framework = (typeof FRAMEWORKS)[number]
const MODES = ['bare', 'gatehouse'] as const
type Mode = (typeof MODES)[number]

const PATH = '/api/thing/'
const BODY = { id: 7, title: 'A thing', author: 'alice', score: 3, created: '2024-01-01T00:00:00Z' }
const BODY_TEXT = JSON.stringify(BODY)

/** The view every framework mounts: AllowAny, no scheme, no throttle, JSON only, answering synchronously. */
function thingView(): ApiView {
  const api = createApi({ authentication: [], permissions: [new AllowAny()], throttles: [] })
  return api.view({ name: 'Thing', formats: ['json'], handlers: { GET: () => jsonResponse(200, BODY) } })
}

/** Per-request figures of one measured window. */
interface Figures {
  cpuUs: number
  bytes: number
  promises: number
  /** User-space instructions per request (`--instructions`), or NaN. */
  instructions: number
}

/** CPU and allocation over a window (`start` … `stop`), and promises in a window of their own. */
class Meter {
  private cpu: NodeJS.CpuUsage | null = null
  private used = 0
  private profiler: v8.GCProfiler | null = null
  private promises = 0
  private readonly hook = createHook({
    init: (_id, type) => {
      if (type === 'PROMISE') this.promises++
    },
  })

  start(countPromises: boolean): void {
    if (countPromises) {
      this.promises = 0
      this.hook.enable()
      return
    }
    this.profiler = new v8.GCProfiler()
    this.profiler.start()
    this.used = v8.getHeapStatistics().used_heap_size
    this.cpu = process.cpuUsage()
  }

  stop(countPromises: boolean, count: number): Partial<Figures> {
    if (countPromises) {
      this.hook.disable()
      return { promises: this.promises / count }
    }
    const cpu = process.cpuUsage(this.cpu ?? undefined)
    const used = v8.getHeapStatistics().used_heap_size
    const stats = this.profiler?.stop()
    let freed = 0
    for (const gc of stats?.statistics ?? []) freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize
    return { cpuUs: (cpu.user + cpu.system) / count, bytes: (used - this.used + freed) / count }
  }
}

/** Idle keep-alive connections live this long: a window may wait while the other server runs its own. */
const KEEP_ALIVE_MS = 600_000

/** A node:http server listening on a free loopback port. */
async function listen(server: Server): Promise<number> {
  server.keepAliveTimeout = KEEP_ALIVE_MS
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as AddressInfo).port
}

/** The server of `framework` in `mode`, listening on a free loopback port. */
async function serve(framework: Framework, mode: Mode): Promise<number> {
  const view = thingView()
  if (framework === 'fastify') {
    const { default: Fastify } = await import('fastify')
    const { mountRoutes } = await import('../src/adapters/fastify/index.js')
    const app = Fastify({ keepAliveTimeout: KEEP_ALIVE_MS })
    if (mode === 'bare') app.get(PATH, async () => BODY)
    else await mountRoutes(app, [route(PATH, view)])
    await app.listen({ port: 0, host: '127.0.0.1' })
    return (app.server.address() as AddressInfo).port
  }
  if (framework === 'express') {
    const { default: express } = await import('express')
    const { mountRoutes } = await import('../src/adapters/express/index.js')
    const app = express()
    app.disable('x-powered-by')
    app.disable('etag')
    if (mode === 'bare') app.get(PATH, (_req, res) => void res.json(BODY))
    else mountRoutes(app, [route(PATH, view)])
    return listen(createServer(app))
  }
  if (framework === 'hono') {
    const { Hono } = await import('hono')
    const { getRequestListener } = await import('@hono/node-server')
    const { mountRoutes } = await import('../src/adapters/hono/index.js')
    const app = new Hono()
    if (mode === 'bare') app.get(PATH, (c) => c.json(BODY))
    else mountRoutes(app, [route(PATH, view)])
    return listen(createServer(getRequestListener(app.fetch)))
  }
  const { router } = await import('../src/adapters/node-http/index.js')
  const bare = (req: IncomingMessage, res: ServerResponse): void => {
    if (req.url !== PATH) {
      res.writeHead(404).end()
      return
    }
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify(BODY))
  }
  return listen(createServer(mode === 'bare' ? bare : router([route(PATH, view)])))
}

/** The child: serves, and measures windows on the parent's messages. */
async function child(framework: Framework, mode: Mode): Promise<void> {
  const port = await serve(framework, mode)
  const meter = new Meter()
  process.on('message', (message: { op: 'start' | 'stop'; promises: boolean; count: number }) => {
    if (message.op === 'start') {
      meter.start(message.promises)
      process.send?.({ op: 'started' })
    } else {
      process.send?.({ op: 'stopped', figures: meter.stop(message.promises, message.count) })
    }
  })
  process.send?.({ op: 'listening', port })
}

function ask(proc: ChildProcess, message: object, answer: string): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    const onMessage = (reply: Record<string, unknown>): void => {
      if (reply['op'] !== answer) return
      proc.off('message', onMessage)
      resolve(reply)
    }
    proc.on('message', onMessage)
    proc.send(message)
  })
}

/** `count` sequential GETs over one keep-alive connection; every answer must be the body. */
async function drive(port: number, count: number, agent: Agent): Promise<void> {
  for (let i = 0; i < count; i++) {
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: PATH, agent, headers: { host: 'localhost', accept: 'application/json' } }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          if (res.statusCode !== 200 || text !== BODY_TEXT) reject(new Error(`unexpected answer ${res.statusCode}: ${text}`))
          else resolve()
        })
      })
      req.on('error', reject)
      req.end()
    })
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2
}

/** `perf stat` attached to `pid` until the returned function is called: user-space instructions counted. */
async function countInstructions(pid: number): Promise<() => Promise<number>> {
  const perf = spawn('perf', ['stat', '-x', ',', '-e', 'instructions:u', '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] })
  let output = ''
  perf.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
  // perf has attached once it is running; give it a moment before the window starts.
  await new Promise((resolve) => setTimeout(resolve, 300))
  return async () => {
    const exited = new Promise<void>((resolve) => perf.once('exit', () => resolve()))
    perf.kill('SIGINT')
    await exited
    const line = output.split('\n').find((l) => l.includes('instructions'))
    const value = Number(line?.split(',')[0])
    if (!Number.isFinite(value)) throw new Error(`perf stat gave no instruction count: ${output.trim()}`)
    return value
  }
}

/** Runs `callgrind_control <args> <pid>` on a server under callgrind; its output. */
function control(server: Running, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn('callgrind_control', [...args, String(server.proc.pid)], { stdio: ['ignore', 'pipe', 'ignore'] })
    let out = ''
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')))
    proc.once('error', reject)
    proc.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`callgrind_control ${args.join(' ')}: exit ${code}\n${out}`))))
  })
}

/** Where callgrind writes a server's dumps (`<file>.<n>`). */
function dumpFile(pid: number | undefined): string {
  return join(tmpdir(), `gatehouse-adapter-cost.${pid ?? 'x'}.callgrind`)
}

/** The `Ir` total of the newest dump of a server under callgrind (then removed). */
function lastDumpTotal(server: Running): number {
  const base = dumpFile(server.proc.pid)
  const dumps = readdirSync(dirname(base))
    .filter((name) => name.startsWith(`${basename(base)}.`))
    .map((name) => join(dirname(base), name))
  const newest = dumps.sort((a, b) => Number(b.slice(base.length + 1)) - Number(a.slice(base.length + 1)))[0]
  if (newest === undefined) throw new Error(`no callgrind dump for ${base}`)
  const text = readFileSync(newest, 'utf8')
  for (const file of dumps) rmSync(file, { force: true })
  const match = /^(?:totals|summary):\s*(\d+)/m.exec(text)
  if (match === null) throw new Error(`no instruction total in ${newest}`)
  return Number(match[1])
}

/** One server of a pair, alive for all the rounds. */
interface Running {
  readonly mode: Mode
  readonly proc: ChildProcess
  readonly port: number
  readonly agent: Agent
}

async function start(framework: Framework, mode: Mode, warmup: number, callgrind: string | null): Promise<Running> {
  const proc =
    callgrind === null
      ? fork(fileURLToPath(import.meta.url), ['--serve', framework, mode], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
      : // Instrumented only inside the windows (`callgrind_control -i on/off`): start-up and warm-up run at valgrind's plain speed.
        spawn('valgrind', ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${dumpFile(undefined).replace('.x.', '.%p.')}`, process.execPath, callgrind, '--serve', framework, mode], {
          stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        })
  const { port } = (await new Promise((resolve) => proc.once('message', resolve))) as { port: number }
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  await drive(port, warmup, agent)
  return { mode, proc, port, agent }
}

/** One round on one server: a CPU/bytes window (with instructions when asked), then a promise window. */
async function window(server: Running, count: number, instructions: boolean, callgrind: boolean): Promise<Figures> {
  if (callgrind) {
    // The process's own instructions over the window, counted by callgrind alone (no other meter running).
    await control(server, ['-z'])
    await control(server, ['-i', 'on'])
    await drive(server.port, count, server.agent)
    // A dump writes the window's counts to `<out>.<n>` and zeroes them.
    await control(server, ['-d'])
    await control(server, ['-i', 'off'])
    return { cpuUs: NaN, bytes: NaN, promises: NaN, instructions: lastDumpTotal(server) / count }
  }
  await ask(server.proc, { op: 'start', promises: false }, 'started')
  const stopCounting = instructions ? await countInstructions(server.proc.pid as number) : null
  await drive(server.port, count, server.agent)
  const counted = stopCounting === null ? NaN : (await stopCounting()) / count
  const { figures } = (await ask(server.proc, { op: 'stop', promises: false, count }, 'stopped')) as { figures: Partial<Figures> }
  await ask(server.proc, { op: 'start', promises: true }, 'started')
  await drive(server.port, count, server.agent)
  const { figures: promised } = (await ask(server.proc, { op: 'stop', promises: true, count }, 'stopped')) as { figures: Partial<Figures> }
  return { cpuUs: figures.cpuUs ?? NaN, bytes: figures.bytes ?? NaN, promises: promised.promises ?? NaN, instructions: counted }
}

const KEYS = ['cpuUs', 'bytes', 'promises', 'instructions'] as const

function medianFigures(list: readonly Figures[]): Figures {
  const out = {} as Figures
  for (const key of KEYS) out[key] = median(list.map((f) => f[key]))
  return out
}

interface Row {
  framework: Framework
  bare: Figures
  gatehouse: Figures
  /** Median of the per-round differences gatehouse − bare. */
  overBare: Figures
  /** overBare − core: the framework translation alone. */
  adapter: Figures
}

async function measureFramework(framework: Framework, core: Figures, options: Options): Promise<Row> {
  const servers = await Promise.all(MODES.map((mode) => start(framework, mode, Math.max(options.callgrind === null ? 2000 : 1000, options.count), options.callgrind)))
  try {
    const rounds: Record<Mode, Figures[]> = { bare: [], gatehouse: [] }
    for (let round = 0; round < options.rounds; round++) {
      // Alternate which server goes first, so a change of load mid-round hits both alike.
      const order = round % 2 === 0 ? servers : [...servers].reverse()
      for (const server of order) rounds[server.mode].push(await window(server, options.count, options.instructions, options.callgrind !== null))
    }
    const diffs = rounds.gatehouse.map((g, i) => {
      const b = rounds.bare[i] as Figures
      const d = {} as Figures
      for (const key of KEYS) d[key] = g[key] - b[key]
      return d
    })
    const overBare = medianFigures(diffs)
    const adapter = {} as Figures
    for (const key of KEYS) adapter[key] = overBare[key] - core[key]
    return { framework, bare: medianFigures(rounds.bare), gatehouse: medianFigures(rounds.gatehouse), overBare, adapter }
  } finally {
    for (const server of servers) {
      server.agent.destroy()
      server.proc.kill()
    }
  }
}

/** `createApiRequest` + `view.handle` + `wireResponse` in this process: what every adapter calls. */
async function measureCore(options: Options): Promise<Figures> {
  const view = thingView()
  const headers = { get: (name: string) => (name === 'accept' ? 'application/json' : name === 'host' ? 'localhost' : null) }
  const readBody = (): Promise<null> => Promise.resolve(null)
  // Synchronous while the view answers synchronously: the harness adds no promise of its own.
  const call = (): Promise<void> | undefined => {
    const request = createApiRequest({ method: 'GET', url: new URL(`http://localhost${PATH}`), headers, remoteAddress: '127.0.0.1', readBody })
    const answer = view.handle(request)
    if (!(answer instanceof Promise)) {
      wireResponse(answer)
      return undefined
    }
    return answer.then((response) => void wireResponse(response))
  }
  const calls = async (n: number): Promise<void> => {
    for (let i = 0; i < n; i++) {
      const pending = call()
      if (pending !== undefined) await pending
    }
  }
  const count = options.count
  await calls(Math.max(2000, count))
  const meter = new Meter()
  const rounds: Figures[] = []
  for (let round = 0; round < options.rounds; round++) {
    meter.start(false)
    await calls(count)
    const figures = meter.stop(false, count)
    meter.start(true)
    await calls(count)
    const promised = meter.stop(true, count)
    rounds.push({ cpuUs: figures.cpuUs ?? NaN, bytes: figures.bytes ?? NaN, promises: promised.promises ?? NaN, instructions: NaN })
  }
  return medianFigures(rounds)
}

interface Options {
  count: number
  rounds: number
  frameworks: Framework[]
  instructions: boolean
  /** Run the servers under callgrind (`valgrind --tool=callgrind`), from this built bundle: instructions per request. */
  callgrind: string | null
  json: string | null
}

function parseArgs(argv: readonly string[]): Options {
  const o: Options = { count: 2000, rounds: 5, frameworks: [...FRAMEWORKS], instructions: false, callgrind: null, json: null }
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]
    if (flag === '--instructions') {
      o.instructions = true
      continue
    }
    const value = argv[++i]
    if (value === undefined) throw new Error(`missing value for ${flag}`)
    if (flag === '--count') o.count = Number(value)
    else if (flag === '--rounds') o.rounds = Number(value)
    else if (flag === '--frameworks') o.frameworks = value.split(',') as Framework[]
    else if (flag === '--json') o.json = value
    else if (flag === '--callgrind') o.callgrind = value
    else throw new Error(`unknown option ${flag}`)
  }
  return o
}

async function main(): Promise<void> {
  const serveAt = process.argv.indexOf('--serve')
  if (serveAt !== -1) return child(process.argv[serveAt + 1] as Framework, process.argv[serveAt + 2] as Mode)
  const options = parseArgs(process.argv.slice(2))
  const loadBefore = loadavg()[0] ?? NaN
  const core = await measureCore(options)
  const rows: Row[] = []
  for (const framework of options.frameworks) {
    rows.push(await measureFramework(framework, core, options))
    process.stderr.write(`${framework} done\n`)
  }
  const loadAfter = loadavg()[0] ?? NaN
  const f = (v: number, digits = 1): string => (Number.isNaN(v) ? '–' : v.toFixed(digits))
  const k = (v: number): string => (Number.isNaN(v) ? '–' : `${(v / 1000).toFixed(1)} k`)
  console.log(`### Adapter cost per request (\`GET ${PATH}\`, ${options.count} sequential requests on one keep-alive connection, median of ${options.rounds} alternating rounds)`)
  console.log('')
  console.log(`Load average (1 min) ${f(loadBefore, 1)} before, ${f(loadAfter, 1)} after, on ${(await import('node:os')).cpus().length} CPUs.`)
  console.log(`core (createApiRequest + view.handle + wireResponse, in process): ${f(core.cpuUs)} µs, ${f(core.bytes, 0)} B, ${f(core.promises)} promises`)
  console.log('')
  console.log('| framework | bare µs | gatehouse µs | gatehouse − bare µs | adapter µs | bare B | gatehouse − bare B | adapter B | bare promises | gatehouse − bare promises | bare instr. | gatehouse − bare instr. |')
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|')
  for (const r of rows) {
    console.log(
      `| ${r.framework} | ${f(r.bare.cpuUs)} | ${f(r.gatehouse.cpuUs)} | **${f(r.overBare.cpuUs)}** | ${f(r.adapter.cpuUs)} | ${f(r.bare.bytes, 0)} | ${f(r.overBare.bytes, 0)} | ${f(r.adapter.bytes, 0)} | ${f(r.bare.promises)} | ${f(r.overBare.promises)} | ${k(r.bare.instructions)} | ${k(r.overBare.instructions)} |`,
    )
  }
  if (options.json !== null) writeFileSync(options.json, JSON.stringify({ options, load: { before: loadBefore, after: loadAfter }, core, rows }, null, 2))
}

await main()
