/**
 * Hostile inputs at the size limits (1 MiB body, 16 KiB of headers), each sent to the
 * reference API on a real socket while a normal `GET /api/whoami/` is sent beside it.
 * Prints, per shape, the status and time of the hostile request and the time of the
 * normal one (which must not wait for it). Loopback only; a handful of requests.
 *
 *   npx tsx bench/hostile-inputs.ts          (RUNS=1 for one try per shape, no warm-up)
 */
import { request } from 'node:http'
import { freshSqlite } from '../test/helpers/databases.js'
import { startReference } from '../test/helpers/reference-server.js'

interface Shape {
  readonly name: string
  readonly method: 'GET' | 'POST'
  readonly path: string
  readonly headers?: Record<string, string>
  readonly body?: string
}

const MIB = 1024 * 1024
const RUNS = Number(process.env['RUNS'] ?? 5)
const HEADER_ROOM = 15_000 // under Node's 16 KiB header limit with the rest of the request

function jsonOfDigitRuns(): string {
  const run = '1'.repeat(4300)
  const items: string[] = []
  let size = 40
  while (size + run.length + 1 < MIB - 64) {
    items.push(run)
    size += run.length + 1
  }
  return `{"username": [${items.join(',')}], "password": "x"}`
}

const SHAPES: readonly Shape[] = [
  { name: 'normal GET /api/whoami/ (baseline)', method: 'GET', path: '/api/whoami/' },
  {
    name: 'JSON body: 4,300-digit runs (1 MiB)',
    method: 'POST',
    path: '/api/auth/token/',
    headers: { 'content-type': 'application/json' },
    body: jsonOfDigitRuns(),
  },
  {
    name: 'JSON body: whitespace run inside a string field (1 MiB)',
    method: 'POST',
    path: '/api/auth/token/',
    headers: { 'content-type': 'application/json' },
    body: `{"username": "x${' '.repeat(MIB - 64)}x", "password": "y"}`,
  },
  {
    name: 'form body: username=x + `+` run + x (1 MiB)',
    method: 'POST',
    path: '/api/auth/token/',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `username=x${'+'.repeat(MIB - 64)}x&password=y`,
  },
  {
    name: 'Cookie: space run inside a value (15 KB)',
    method: 'GET',
    path: '/api/schemes/session/',
    headers: { cookie: `sessionid=a${' '.repeat(HEADER_ROOM)}b; csrftoken=x` },
  },
  {
    name: 'Authorization: Basic with 15 KB of base64',
    method: 'GET',
    path: '/api/whoami/',
    headers: { authorization: `Basic ${'QUFB'.repeat(HEADER_ROOM / 4)}` },
  },
  {
    name: 'Authorization: Token + space run (15 KB)',
    method: 'GET',
    path: '/api/whoami/',
    headers: { authorization: `Token a${' '.repeat(HEADER_ROOM)}b` },
  },
  {
    name: 'Accept: 15 KB of media-type parameters',
    method: 'GET',
    path: '/api/articles/',
    headers: { accept: `application/json${';q=0.5'.repeat(HEADER_ROOM / 6)}` },
  },
  { name: 'query: page = 15,000 digits', method: 'GET', path: `/api/articles/pages/?page=${'9'.repeat(HEADER_ROOM)}` },
  { name: 'query: cursor = 15 KB', method: 'GET', path: `/api/articles/cursor/?cursor=${'A'.repeat(HEADER_ROOM)}.A` },
  { name: 'query: 15 KB of `+`-encoded author', method: 'GET', path: `/api/articles/?author=${'+'.repeat(HEADER_ROOM)}` },
]

function send(port: number, shape: Shape): Promise<{ status: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const req = request(
      { host: '127.0.0.1', port, method: shape.method, path: shape.path, headers: { ...shape.headers, connection: 'close' } },
      (res) => {
        res.resume()
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }))
      },
    )
    req.on('error', reject)
    req.end(shape.body)
  })
}

const server = await startReference(freshSqlite())
const port = Number(new URL(server.baseUrl).port)
try {
  // Warm up the routes and the JIT.
  if (RUNS > 1) for (const shape of SHAPES) await send(port, shape)
  console.log('| shape | status | hostile request (ms) | normal request sent beside it (ms) |')
  console.log('|---|---|---|---|')
  for (const shape of SHAPES) {
    const runs: Array<{ status: number; ms: number; beside: number }> = []
    for (let i = 0; i < RUNS; i++) {
      const hostile = send(port, shape)
      await new Promise((resolve) => setTimeout(resolve, 2))
      const beside = await send(port, SHAPES[0] as Shape)
      const answer = await hostile
      runs.push({ ...answer, beside: beside.ms })
    }
    const median = (values: number[]): number => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0
    console.log(
      `| ${shape.name} | ${runs[0]?.status} | ${median(runs.map((r) => r.ms)).toFixed(1)} | ${median(runs.map((r) => r.beside)).toFixed(1)} |`,
    )
  }
} finally {
  await server.close()
}
