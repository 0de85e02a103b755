/**
 * Instruction counts (or a CPU profile) of the core's work for `GET /api/articles/?page=3`
 * (token auth), set beside the hand-written handler's, in one process: `--warmup` requests,
 * then `--count` sequential ones measured. Load does not move an instruction count, so this is
 * the figure to compare before and after a change on a shared machine.
 *
 *   perf stat -e instructions:u --delay=-1 --control fifo:/tmp/ctl,/tmp/ack -- \
 *     env PERF_CTL=/tmp/ctl PERF_ACK=/tmp/ack npx tsx bench/core-counts.ts --db sqlite --server gatehouse --count 20000
 *   node --cpu-prof --import tsx bench/core-counts.ts --db sqlite --server gatehouse --count 50000
 *
 * With `PERF_CTL`/`PERF_ACK` (perf's control FIFOs) the counters are on only while the measured
 * requests run. Where the machine has no hardware counters (a VM), run it under callgrind with
 * `--callgrind`: instrumentation is turned on (`callgrind_control -i on`) just before the measured
 * requests and off just after, so the profile holds their instructions only:
 *
 *   valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/tmp/cg.out \
 *     node --single-threaded --expose-gc --max-semi-space-size=128 --no-flush-bytecode \
 *     --import tsx bench/core-counts.ts --db sqlite --count 2000 --warmup 10000 --callgrind
 *   callgrind_annotate /tmp/cg.out | head `--stage` narrows the gatehouse side: `whole` (the view's `handle` and the
 * written answer, `wireResponse`, as an adapter calls it), `request` (the `ApiRequest` alone),
 * `policies` (the view's guard alone). Needs `DATABASE_URL` for `--db postgres`.
 *
 * `--alloc-profile out.json` samples the allocations of the measured requests (V8's sampling
 * heap profiler, objects collected since counted too) and prints bytes per request by function:
 * where the allocation goes, which load does not move either.
 */
import { spawn } from 'node:child_process'
import { closeSync, openSync, readSync, writeFileSync, writeSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { openReferenceContext } from '../examples/reference-api/context.js'
import { articleRoutes } from '../examples/reference-api/routes/articles.js'
import { createApiRequest } from '../src/core/request/request-factory.js'
import { wireResponse } from '../src/core/sendable-response.js'
import type { ApiRequest } from '../src/index.js'
import { freshPostgres, freshSqlite } from '../test/helpers/databases.js'
import { handHandle, handQueries } from './hand-core.js'
import { BOB_TOKEN } from './wrk.js'

const args = process.argv.slice(2)
const flag = (name: string, fallback: string): string => {
  const i = args.indexOf(name)
  return i === -1 ? fallback : (args[i + 1] ?? fallback)
}
const db = flag('--db', 'sqlite')
const server = flag('--server', 'gatehouse')
const stage = flag('--stage', 'whole')
const count = Number(flag('--count', '20000'))
const warmup = Number(flag('--warmup', '5000'))

const HOST = '127.0.0.1:8000'
const HEADER = `Token ${BOB_TOKEN}`
const HEADERS: Readonly<Record<string, string>> = { host: HOST, authorization: HEADER, accept: 'application/json' }
const headers = { get: (name: string): string | null => HEADERS[name.toLowerCase()] ?? null }
const request = (): ApiRequest =>
  createApiRequest({ method: 'GET', url: new URL('/api/articles/?page=3', `http://${HOST}`), headers, remoteAddress: '127.0.0.1', readBody: async () => null })

/**
 * Turns callgrind's instrumentation on or off for this process: `callgrind_control` asks, and
 * the process must keep running (sleeping in short steps) until the tool answered.
 */
async function callgrindInstr(on: boolean): Promise<void> {
  if (!args.includes('--callgrind')) return
  const control = spawn('callgrind_control', ['-i', on ? 'on' : 'off', String(process.pid)], { stdio: 'ignore' })
  let done = false
  control.on('exit', () => {
    done = true
  })
  while (!done) await sleep(5)
}

/** Turns perf's counters on or off through its control FIFO, waiting for the acknowledgement. */
function perfControl(command: 'enable' | 'disable'): void {
  const ctl = process.env['PERF_CTL']
  const ack = process.env['PERF_ACK']
  if (ctl === undefined || ack === undefined) return
  const out = openSync(ctl, 'w')
  writeSync(out, `${command}\n`)
  closeSync(out)
  const input = openSync(ack, 'r')
  readSync(input, Buffer.alloc(5))
  closeSync(input)
}

const database = db === 'sqlite' ? freshSqlite() : await freshPostgres()
const ref = await openReferenceContext({ databaseUrl: database.url, scrypt: { N: 1024, r: 8, p: 1 } })
const q = await handQueries(database.url)
try {
  const view = articleRoutes(ref).find((r) => r.path === '/api/articles/')?.view
  if (view === undefined) throw new Error('no /api/articles/ route')
  const steps: Record<string, () => unknown> = {
    whole: () => {
      const answer = view.handle(request())
      return answer instanceof Promise ? answer.then(wireResponse) : wireResponse(answer)
    },
    request,
    policies: () => view.policies.run(request()),
  }
  const one = server === 'hand' ? () => handHandle(q, HEADER, HOST, '3') : steps[stage]
  if (one === undefined) throw new Error(`unknown stage ${stage}`)
  const gatehouseBody = await Promise.resolve(steps['whole']?.()).then((w) => (w as { body: string }).body)
  if (gatehouseBody !== (await handHandle(q, HEADER, HOST, '3'))) throw new Error('the answers differ')
  for (let i = 0; i < warmup; i++) await one()
  const allocOut = args.includes('--alloc-profile') ? flag('--alloc-profile', 'alloc.json') : null
  const session = allocOut === null ? null : new Session()
  if (session !== null) {
    session.connect()
    await session.post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true })
  }
  // With --expose-gc, start from a collected heap (and, with a large --max-semi-space-size, no collection runs in the window).
  ;(globalThis as { gc?: () => void }).gc?.()
  // A marker for V8's traces (`--trace-opt --trace-deopt`): what is compiled or dropped from here on is steady-state work.
  if (args.includes('--mark')) console.log('--- measured requests start ---')
  await callgrindInstr(true)
  const start = process.cpuUsage()
  perfControl('enable')
  for (let i = 0; i < count; i++) await one()
  perfControl('disable')
  await callgrindInstr(false)
  const used = process.cpuUsage(start)
  if (session !== null && allocOut !== null) {
    const { profile } = await session.post('HeapProfiler.stopSampling')
    session.disconnect()
    writeFileSync(allocOut, JSON.stringify(profile))
    printAllocations(profile, count)
  }
  console.log(`${db} ${server}${server === 'hand' ? '' : ` ${stage}`}: ${count} requests, ${((used.user + used.system) / count).toFixed(1)} CPU µs each (load-dependent)`)
} finally {
  await q.close()
  await ref.close()
  await database.drop()
}

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number }
  selfSize: number
  children: SamplingNode[]
}

/** Bytes per request allocated by each function (self), the largest first. */
function printAllocations(profile: { head: SamplingNode }, requests: number): void {
  const bySite = new Map<string, number>()
  const walk = (node: SamplingNode): void => {
    const { functionName, url, lineNumber } = node.callFrame
    const site = `${functionName || '(anonymous)'} ${url.replace(/^.*?\/(src|bench|examples|node_modules)\//, '$1/')}:${lineNumber + 1}`
    bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize)
    for (const child of node.children) walk(child)
  }
  walk(profile.head)
  let total = 0
  for (const bytes of bySite.values()) total += bytes
  console.log(`sampled allocation: ${(total / requests).toFixed(0)} bytes per request`)
  for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`${(bytes / requests).toFixed(0).padStart(7)}  ${site}`)
}
