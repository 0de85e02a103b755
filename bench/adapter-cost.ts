/**
 * What each adapter costs over a bare route of its own framework (issue 34 item 1), per
 * request, in figures the machine's load does not move: node CPU µs (`process.cpuUsage` of the
 * server process), bytes allocated on the V8 heap (heap growth plus what every GC freed, from
 * `v8.GCProfiler`) and promises created (an `async_hooks` init counter, in a pass of its own
 * since hooks slow every promise). Each server runs in a child process; the parent sends
 * `--count` requests per round over 8 keep-alive connections and the child reports its own figures.
 *
 *   npx tsx bench/adapter-cost.ts [--count 5000] [--rounds 3] [--frameworks fastify,express,hono,node] [--json out.json]
 *
 * Per framework, three servers answer `GET /api/thing/` with the same JSON body:
 * - `bare`: the framework's own route (`reply.send`, `res.end`, `c.body`, `res.end`);
 * - `view`: gatehouse's `mountRoutes` with a view that authenticates nobody and returns the body
 *   (no policies): the adapter in, the core route runner and the adapter out;
 * and, in this process, `core`: the same view's `handle` on a ready-made `ApiRequest`.
 * "adapter" = view − bare − core: what translating the request and writing the answer costs.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { createServer, request as httpRequest, Agent, type Server } from 'node:http'
import { createHook } from 'node:async_hooks'
import type { AddressInfo } from 'node:net'
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import v8 from 'node:v8'
import { createApi, jsonResponse, route, type ApiView } from '../src/index.js'
import { createApiRequest } from '../src/core/request/request-factory.js'
import { serializeBody } from '../src/core/api-response.js'

const FRAMEWORKS = ['fastify', 'express', 'hono', 'node'] as const
type Framework = (typeof FRAMEWORKS)[number]
type Mode = 'bare' | 'view'

const PATH = '/api/thing/'
const BODY = { id: 7, title: 'A thing', author: 'alice', score: 3, created: '2024-01-01T00:00:00Z' }
const BODY_TEXT = JSON.stringify(BODY)

/** The view every framework mounts: no scheme, no permission, no throttle; JSON only. */
function thingView(): ApiView {
  const api = createApi({ authentication: [] })
  return api.view({ name: 'Thing', formats: ['json'], handlers: { GET: async () => jsonResponse(200, BODY) } })
}

/** Per-request figures of one measured window. */
interface Figures {
  cpuUs: number
  bytes: number
  promises: number
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

/** The server of `framework` in `mode`, listening on a free loopback port. */
async function serve(framework: Framework, mode: Mode): Promise<{ port: number }> {
  const view = thingView()
  if (framework === 'fastify') {
    const { default: Fastify } = await import('fastify')
    const { mountRoutes } = await import('../src/adapters/fastify/index.js')
    const app = Fastify()
    if (mode === 'bare') app.get(PATH, async (_request, reply) => reply.header('content-type', 'application/json').send(BODY_TEXT))
    else await mountRoutes(app, [route(PATH, view)])
    await app.listen({ port: 0, host: '127.0.0.1' })
    return { port: (app.server.address() as AddressInfo).port }
  }
  let server: Server
  if (framework === 'express') {
    const { default: express } = await import('express')
    const { mountRoutes } = await import('../src/adapters/express/index.js')
    const app = express()
    app.disable('x-powered-by')
    app.disable('etag')
    if (mode === 'bare') app.get(PATH, (_req, res) => void res.setHeader('content-type', 'application/json').end(BODY_TEXT))
    else mountRoutes(app, [route(PATH, view)])
    server = createServer(app)
  } else if (framework === 'hono') {
    const { Hono } = await import('hono')
    const { getRequestListener } = await import('@hono/node-server')
    const { mountRoutes } = await import('../src/adapters/hono/index.js')
    const app = new Hono()
    if (mode === 'bare') app.get(PATH, (c) => c.body(BODY_TEXT, 200, { 'content-type': 'application/json' }))
    else mountRoutes(app, [route(PATH, view)])
    server = createServer(getRequestListener(app.fetch))
  } else {
    const { router } = await import('../src/adapters/node-http/index.js')
    const listener =
      mode === 'bare'
        ? (_req: unknown, res: import('node:http').ServerResponse) => void res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(BODY_TEXT) }).end(BODY_TEXT)
        : router([route(PATH, view)])
    server = createServer(listener)
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { port: (server.address() as AddressInfo).port }
}

/** The child: serves, and measures windows on the parent's messages. */
async function child(framework: Framework, mode: Mode): Promise<void> {
  const { port } = await serve(framework, mode)
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

/** `count` GETs over `CONNECTIONS` keep-alive connections, each sequential; checks every answer is the body. */
async function drive(port: number, count: number, agent: Agent): Promise<void> {
  const each = Math.ceil(count / CONNECTIONS)
  await Promise.all(Array.from({ length: CONNECTIONS }, () => driveOne(port, each, agent)))
}

/** Several connections at once: the per-wake-up cost of the event loop is shared, as under load. */
const CONNECTIONS = 8

async function driveOne(port: number, count: number, agent: Agent): Promise<void> {
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
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2
}

async function measureServer(framework: Framework, mode: Mode, count: number, rounds: number): Promise<Figures> {
  const proc = fork(fileURLToPath(import.meta.url), ['--serve', framework, mode], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  try {
    const { port } = (await new Promise((resolve) => proc.once('message', resolve))) as { port: number }
    const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS })
    await drive(port, Math.max(1000, count), agent)
    const cpu: number[] = []
    const bytes: number[] = []
    const promises: number[] = []
    for (let round = 0; round < rounds; round++) {
      for (const countPromises of [false, true]) {
        await ask(proc, { op: 'start', promises: countPromises }, 'started')
        await drive(port, count, agent)
        const { figures } = (await ask(proc, { op: 'stop', promises: countPromises, count }, 'stopped')) as { figures: Partial<Figures> }
        if (countPromises) promises.push(figures.promises ?? NaN)
        else {
          cpu.push(figures.cpuUs ?? NaN)
          bytes.push(figures.bytes ?? NaN)
        }
      }
    }
    agent.destroy()
    return { cpuUs: median(cpu), bytes: median(bytes), promises: median(promises) }
  } finally {
    proc.kill()
  }
}

/** The view's `handle` alone, in this process: CPU, bytes and promises per call. */
async function measureCore(count: number, rounds: number): Promise<Figures> {
  const view = thingView()
  const call = async (): Promise<void> => {
    const request = createApiRequest({
      method: 'GET',
      url: new URL(`http://localhost${PATH}`),
      headers: { get: (name) => (name === 'accept' ? 'application/json' : name === 'host' ? 'localhost' : null) },
      remoteAddress: '127.0.0.1',
      readBody: async () => null,
    })
    serializeBody(await view.handle(request))
  }
  for (let i = 0; i < count; i++) await call()
  const meter = new Meter()
  const cpu: number[] = []
  const bytes: number[] = []
  const promises: number[] = []
  for (let round = 0; round < rounds; round++) {
    for (const countPromises of [false, true]) {
      meter.start(countPromises)
      for (let i = 0; i < count; i++) await call()
      const figures = meter.stop(countPromises, count)
      if (countPromises) promises.push(figures.promises ?? NaN)
      else {
        cpu.push(figures.cpuUs ?? NaN)
        bytes.push(figures.bytes ?? NaN)
      }
    }
  }
  return { cpuUs: median(cpu), bytes: median(bytes), promises: median(promises) }
}

interface Options {
  count: number
  rounds: number
  frameworks: Framework[]
  json: string | null
}

function parseArgs(argv: readonly string[]): Options {
  const o: Options = { count: 5000, rounds: 3, frameworks: [...FRAMEWORKS], json: null }
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]]
    if (value === undefined) throw new Error(`missing value for ${flag}`)
    if (flag === '--count') o.count = Number(value)
    else if (flag === '--rounds') o.rounds = Number(value)
    else if (flag === '--frameworks') o.frameworks = value.split(',') as Framework[]
    else if (flag === '--json') o.json = value
    else throw new Error(`unknown option ${flag}`)
  }
  return o
}

async function main(): Promise<void> {
  const serveAt = process.argv.indexOf('--serve')
  if (serveAt !== -1) return child(process.argv[serveAt + 1] as Framework, process.argv[serveAt + 2] as Mode)
  const options = parseArgs(process.argv.slice(2))
  const core = await measureCore(options.count, options.rounds)
  const rows: { framework: Framework; bare: Figures; view: Figures; adapter: Figures }[] = []
  for (const framework of options.frameworks) {
    const bare = await measureServer(framework, 'bare', options.count, options.rounds)
    const view = await measureServer(framework, 'view', options.count, options.rounds)
    const adapter = { cpuUs: view.cpuUs - bare.cpuUs - core.cpuUs, bytes: view.bytes - bare.bytes - core.bytes, promises: view.promises - bare.promises - core.promises }
    rows.push({ framework, bare, view, adapter })
    process.stderr.write(`${framework} done\n`)
  }
  const f = (v: number, digits = 1): string => v.toFixed(digits)
  console.log(`### Adapter cost per request (\`GET ${PATH}\`, ${options.count} requests over 8 connections, median of ${options.rounds})`)
  console.log('')
  console.log(`core (view.handle alone): ${f(core.cpuUs)} µs, ${f(core.bytes, 0)} B, ${f(core.promises)} promises`)
  console.log('')
  console.log('| framework | bare µs | gatehouse µs | adapter µs | bare B | gatehouse B | adapter B | bare promises | gatehouse promises | adapter promises |')
  console.log('|---|---|---|---|---|---|---|---|---|---|')
  for (const r of rows) {
    console.log(`| ${r.framework} | ${f(r.bare.cpuUs)} | ${f(r.view.cpuUs)} | ${f(r.adapter.cpuUs)} | ${f(r.bare.bytes, 0)} | ${f(r.view.bytes, 0)} | ${f(r.adapter.bytes, 0)} | ${f(r.bare.promises)} | ${f(r.view.promises)} | ${f(r.adapter.promises)} |`)
  }
  if (options.json !== null) writeFileSync(options.json, JSON.stringify({ options, core, rows }, null, 2))
}

await main()
