/**
 * Hostile inputs at the size limits (1 MiB body, Node's 16 KiB of request line and
 * headers), each sent to a reference-API process (its own process, so a blocked event
 * loop there cannot stall this client's clock) while a normal `GET /api/whoami/` is sent
 * beside it once the hostile request is on the wire. Prints, per shape, the status and
 * time of the hostile request and the time of the normal one (which must not wait for
 * it). Loopback only, SQLite, a handful of requests per shape.
 *
 *   npx tsx bench/hostile-inputs.ts          (RUNS=1 for one try per shape; TIMEOUT_MS, default 30000)
 *
 * A request still unanswered after TIMEOUT_MS is reported as `timeout`; the server
 * (still busy on it) is then killed and a fresh one started for the next shape.
 */
import { request } from 'node:http'
import { startInstance, type Instance } from '../scripts/multi-instance.js'
import { freshSqlite } from '../test/helpers/databases.js'

interface Shape {
  readonly name: string
  readonly method: 'GET' | 'POST'
  readonly path: string
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
}

const MIB = 1024 * 1024
const RUNS = Number(process.env['RUNS'] ?? 3)
const TIMEOUT_MS = Number(process.env['TIMEOUT_MS'] ?? 30_000)
/** Under Node's 16 KiB limit for the request line and headers together. */
const HEADER_ROOM = 15_000
/** A body just under the 1 MiB body limit, leaving room for the JSON or form around the run. */
const BODY_ROOM = MIB - 64
const JSON_TYPE = { 'content-type': 'application/json' }
const FORM_TYPE = { 'content-type': 'application/x-www-form-urlencoded' }
const TOKEN = '/api/auth/token/'

function jsonOfDigitRuns(): string {
  const run = '1'.repeat(4300)
  const items: string[] = []
  for (let size = 40; size + run.length + 1 < BODY_ROOM; size += run.length + 1) items.push(run)
  return `{"username": [${items.join(',')}], "password": "x"}`
}

function multipart(field: string, value: string): { headers: Record<string, string>; body: string } {
  const boundary = 'hostile-boundary'
  return {
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    body: `--${boundary}\r\nContent-Disposition: form-data; name="${field}"\r\n\r\n${value}\r\n--${boundary}\r\nContent-Disposition: form-data; name="password"\r\n\r\ny\r\n--${boundary}--\r\n`,
  }
}

/** `count` one-byte fields (about 50 bytes each), the last two `username` and `password`. */
function manyParts(count: number): { headers: Record<string, string>; body: string } {
  const boundary = 'hostile-boundary'
  const part = (name: string, value: string): string => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
  return {
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    body: `${part('a', 'b').repeat(count - 2)}${part('username', 'x')}${part('password', 'y')}--${boundary}--\r\n`,
  }
}

const BASELINE: Shape = { name: 'normal GET /api/whoami/ (baseline)', method: 'GET', path: '/api/whoami/' }

const SHAPES: readonly Shape[] = [
  BASELINE,
  { name: 'JSON: 4,300-digit runs', method: 'POST', path: TOKEN, headers: JSON_TYPE, body: jsonOfDigitRuns() },
  { name: 'JSON: one 4,301-digit integer', method: 'POST', path: TOKEN, headers: JSON_TYPE, body: `{"username": ${'1'.repeat(4301)}}` },
  {
    name: 'JSON: space run inside a string field',
    method: 'POST',
    path: TOKEN,
    headers: JSON_TYPE,
    body: `{"username": "x${' '.repeat(BODY_ROOM)}x", "password": "y"}`,
  },
  {
    name: 'JSON: \\u3000 run inside a string field',
    method: 'POST',
    path: TOKEN,
    headers: JSON_TYPE,
    body: `{"username": "x${'\\u3000'.repeat(BODY_ROOM / 6)}x", "password": "y"}`,
  },
  {
    name: 'JSON: whitespace between tokens',
    method: 'POST',
    path: TOKEN,
    headers: JSON_TYPE,
    body: `{"username":${' '.repeat(BODY_ROOM)}"x", "password": "y"}`,
  },
  { name: 'form: `+` run inside a field', method: 'POST', path: TOKEN, headers: FORM_TYPE, body: `username=x${'+'.repeat(BODY_ROOM)}x&password=y` },
  { name: 'form: %09 run inside a field', method: 'POST', path: TOKEN, headers: FORM_TYPE, body: `username=x${'%09'.repeat(BODY_ROOM / 3)}x&password=y` },
  { name: 'form: 200,000 `&` pairs', method: 'POST', path: TOKEN, headers: FORM_TYPE, body: `${'a=b&'.repeat(BODY_ROOM / 4 - 16)}username=x&password=y` },
  { name: 'multipart: space run inside a field', method: 'POST', path: TOKEN, ...multipart('username', `x${' '.repeat(BODY_ROOM - 300)}x`) },
  { name: 'multipart: 15,000 parts', method: 'POST', path: TOKEN, ...manyParts(15_000) },
  {
    name: 'Cookie: space run inside a value',
    method: 'GET',
    path: '/api/schemes/session/',
    headers: { cookie: `sessionid=a${' '.repeat(HEADER_ROOM)}b; csrftoken=x` },
  },
  { name: 'Cookie: 3,000 `;` chunks', method: 'GET', path: '/api/schemes/session/', headers: { cookie: 'a=b; '.repeat(HEADER_ROOM / 5) } },
  {
    name: 'Cookie + CSRF: POST login with a space-run csrftoken',
    method: 'POST',
    path: '/api/auth/login/',
    headers: { ...FORM_TYPE, cookie: `csrftoken=a${' '.repeat(HEADER_ROOM)}b` },
    body: 'username=x&password=y',
  },
  { name: 'Authorization: Basic + 15 KB of base64', method: 'GET', path: '/api/whoami/', headers: { authorization: `Basic ${'QUFB'.repeat(HEADER_ROOM / 4)}` } },
  { name: 'Authorization: Basic + space runs', method: 'GET', path: '/api/whoami/', headers: { authorization: `Basic ${'QUFB '.repeat(HEADER_ROOM / 5)}` } },
  { name: 'Authorization: Token + space run', method: 'GET', path: '/api/whoami/', headers: { authorization: `Token a${' '.repeat(HEADER_ROOM)}b` } },
  { name: 'Accept: 2,500 `;q=` parameters', method: 'GET', path: '/api/articles/', headers: { accept: `application/json${';q=0.5'.repeat(HEADER_ROOM / 6)}` } },
  { name: 'Accept: 1,800 media ranges', method: 'GET', path: '/api/articles/', headers: { accept: 'text/x, '.repeat(HEADER_ROOM / 8) } },
  { name: 'Accept: space run in a parameter', method: 'GET', path: '/api/articles/', headers: { accept: `text/html;a=${' '.repeat(HEADER_ROOM)}b` } },
  { name: 'query: page = 15,000 digits', method: 'GET', path: `/api/articles/pages/?page=${'9'.repeat(HEADER_ROOM)}` },
  { name: 'query: page = 1_1_1… (4,300 chars)', method: 'GET', path: `/api/articles/pages/?page=${'1_'.repeat(2150)}1` },
  { name: 'query: page = `+` run + 1', method: 'GET', path: `/api/articles/pages/?page=${'+'.repeat(HEADER_ROOM)}1` },
  { name: 'query: offset/limit = %20 runs', method: 'GET', path: `/api/articles/offset/?limit=${'%20'.repeat(2400)}1&offset=${'%20'.repeat(2400)}1` },
  { name: 'query: cursor = 15 KB', method: 'GET', path: `/api/articles/cursor/?cursor=${'A'.repeat(HEADER_ROOM)}.A` },
  { name: 'query: cursor = 4,096 chars, no dot', method: 'GET', path: `/api/articles/cursor/?cursor=${'A'.repeat(4096)}` },
  { name: 'query: 3,700 `&` pairs', method: 'GET', path: `/api/articles/?${'a=b&'.repeat(HEADER_ROOM / 4)}` },
  { name: 'query: %41 run', method: 'GET', path: `/api/articles/?author=${'%41'.repeat(HEADER_ROOM / 3)}` },
  {
    name: 'X-Forwarded-For: 2,000 entries',
    method: 'POST',
    path: '/api/auth/token/throttled/',
    headers: { ...JSON_TYPE, 'x-forwarded-for': '1.2.3.4, '.repeat(HEADER_ROOM / 9) },
    body: '{"username": "x", "password": "y"}',
  },
  {
    name: 'X-Forwarded-For: space run',
    method: 'POST',
    path: '/api/auth/token/throttled/',
    headers: { ...JSON_TYPE, 'x-forwarded-for': `1.2.3.4${' '.repeat(HEADER_ROOM)}x` },
    body: '{"username": "x", "password": "y"}',
  },
]

interface Answer {
  readonly status: number | 'timeout' | 'error'
  readonly ms: number
}

/** Sends one request; `sent` resolves once it is on the wire. */
function send(port: number, shape: Shape): { sent: Promise<void>; answer: Promise<Answer> } {
  let onSent = (): void => {}
  const sent = new Promise<void>((resolve) => (onSent = resolve))
  const answer = new Promise<Answer>((resolve) => {
    const started = performance.now()
    const done = (status: Answer['status']): void => {
      onSent()
      resolve({ status, ms: performance.now() - started })
    }
    const req = request({ host: '127.0.0.1', port, method: shape.method, path: shape.path, headers: { ...shape.headers, connection: 'close' } }, (res) => {
      res.resume()
      res.on('end', () => done(res.statusCode ?? 0))
    })
    req.setTimeout(TIMEOUT_MS, () => {
      req.destroy()
      done('timeout')
    })
    req.on('error', () => done('error'))
    req.on('finish', onSent)
    req.end(shape.body)
  })
  return { sent, answer }
}

function sizeOf(shape: Shape): string {
  const bytes = shape.body !== undefined && shape.body.length > 1000 ? shape.body.length : shape.path.length + Object.values(shape.headers ?? {}).reduce((n, v) => n + v.length, 0)
  return bytes >= 1000 * 1000 ? `${(bytes / MIB).toFixed(2)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`
}

const median = (values: number[]): number => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0
const fmt = (answer: Answer): string => (typeof answer.status === 'number' ? answer.ms.toFixed(1) : `> ${TIMEOUT_MS}`)

const database = freshSqlite()
const env = { DATABASE_URL: database.url, GATEHOUSE_NUM_PROXIES: '1', REDIS_URL: undefined }
let server: Instance = await startInstance({ env })
try {
  // Warm up the routes and the JIT with ordinary requests.
  for (let i = 0; i < 20; i++) await send(server.port, BASELINE).answer
  console.log(`RUNS=${RUNS}, Node ${process.version}; times are medians in ms`)
  console.log('')
  console.log('| shape | size | status | hostile request (ms) | normal request sent beside it (ms) |')
  console.log('|---|---|---|---|---|')
  for (const shape of SHAPES) {
    const runs: Array<{ hostile: Answer; beside: Answer }> = []
    for (let i = 0; i < RUNS; i++) {
      const hostile = send(server.port, shape)
      await hostile.sent
      await new Promise((resolve) => setTimeout(resolve, 5))
      const beside = await send(server.port, BASELINE).answer
      runs.push({ hostile: await hostile.answer, beside })
      if (runs.some((r) => r.hostile.status === 'timeout' || r.beside.status === 'timeout')) break
    }
    const timedOut = runs.find((r) => r.hostile.status === 'timeout')
    const hostile = timedOut?.hostile ?? { status: runs[0]?.hostile.status ?? 'error', ms: median(runs.map((r) => r.hostile.ms)) }
    const besideOut = runs.find((r) => r.beside.status === 'timeout')?.beside
    const beside = besideOut ?? { status: 200, ms: median(runs.map((r) => r.beside.ms)) }
    console.log(`| ${shape.name} | ${sizeOf(shape)} | ${hostile.status} | ${fmt(hostile)} | ${fmt(beside)} |`)
    if (timedOut !== undefined || besideOut !== undefined) {
      // The server is still busy with the hostile request: start a fresh one.
      await server.stop('SIGKILL')
      server = await startInstance({ env })
    }
  }
} finally {
  await server.stop()
  await database.drop()
}
