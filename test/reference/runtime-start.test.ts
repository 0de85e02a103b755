/**
 * `npm run start:bun` and `npm run start:deno` (the reference API as Hono on Bun.serve and
 * Deno.serve, SQLite through bun:sqlite and node:sqlite) answer as `npm start` (Fastify on
 * Node, better-sqlite3) does: the real scripts in real processes, `PORT` and `DATABASE_URL`
 * as for `npm start`, the same requests to each, status, body and headers compared.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshPostgres, postgresAvailable, type TestDatabase } from '../helpers/databases.js'
import { ROOT } from '../helpers/cli-process.js'
import { backendUnavailable } from '../helpers/requirements.js'

/** The same signing secret for every server: cursor links are signed alike. */
const SECRET = 'runtime-start-test-secret-0123456789'

interface Started {
  readonly url: string
  readonly log: () => string
  stop(): Promise<void>
}

/**
 * Runs `npm run <script>` with `PORT=0` (a free port) and `DATABASE_URL`, and waits for its
 * "listening on" line. Generous limit: Deno compiles the sources on first start, on a loaded machine.
 */
function startScript(script: string, databaseUrl: string): Promise<Started> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', DATABASE_URL: databaseUrl, GATEHOUSE_SECRET: SECRET }
  delete env['REDIS_URL']
  delete env['GATEHOUSE_FRAMEWORK']
  // detached: the script's process group (npm, then bun/deno/tsx) is stopped together.
  const child: ChildProcess = spawn('npm', ['run', '--silent', script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  let output = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`npm run ${script} did not listen within 120 s:\n${output}`)), 120_000)
    const stop = (): Promise<void> =>
      new Promise((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done()
        child.once('exit', () => done())
        process.kill(-(child.pid as number), 'SIGTERM')
      })
    function fail(error: Error): void {
      clearTimeout(timer)
      void stop().then(() => reject(error))
    }
    const read = (chunk: Buffer): void => {
      output += chunk.toString('utf8')
      const match = /listening on (http:\/\/\S+)/.exec(output)
      if (match?.[1] !== undefined) {
        clearTimeout(timer)
        resolve({ url: match[1], log: () => output, stop })
      }
    }
    child.stdout?.on('data', read)
    child.stderr?.on('data', read)
    child.once('exit', (code) => fail(new Error(`npm run ${script} exited (${code}) before listening:\n${output}`)))
  })
}

/** One request and what of its answer must be the same everywhere. */
interface Probe {
  readonly name: string
  readonly path: string
  readonly init?: RequestInit
}

const BOB_TOKEN = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'
const basic = (user: string, password: string): string => `Basic ${btoa(`${user}:${password}`)}`

const PROBES: readonly Probe[] = [
  { name: 'anonymous whoami', path: '/api/whoami/' },
  { name: 'token whoami', path: '/api/whoami/', init: { headers: { authorization: `Token ${BOB_TOKEN}` } } },
  { name: 'bad token', path: '/api/whoami/', init: { headers: { authorization: 'Token nope' } } },
  { name: 'basic scheme, right password', path: '/api/schemes/basic/', init: { headers: { authorization: basic('alice', 'alice-pass-1') } } },
  { name: 'basic scheme, wrong password', path: '/api/schemes/basic/', init: { headers: { authorization: basic('alice', 'wrong') } } },
  { name: 'private, anonymous', path: '/api/private/' },
  { name: 'staff as bob', path: '/api/staff/', init: { headers: { authorization: `Token ${BOB_TOKEN}` } } },
  { name: 'no trailing slash', path: '/api/whoami' },
  { name: 'unknown path', path: '/nope/' },
  { name: 'method not allowed', path: '/api/whoami/', init: { method: 'DELETE' } },
  { name: 'HEAD', path: '/api/whoami/', init: { method: 'HEAD' } },
  { name: 'OPTIONS', path: '/api/whoami/', init: { method: 'OPTIONS' } },
  { name: 'page 2', path: '/api/articles/pages/?page=2' },
  { name: 'page out of range', path: '/api/articles/pages/?page=999' },
  { name: 'offset page', path: '/api/articles/offset/?limit=3&offset=5' },
  { name: 'cursor page', path: '/api/articles/cursor/' },
  { name: 'bad cursor', path: '/api/articles/cursor/?cursor=zzz' },
  { name: 'ordered', path: '/api/articles/ordered/?ordering=-score,id' },
  { name: 'obtain token, wrong password', path: '/api/auth/token/', init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"username":"bob","password":"x"}' } },
  { name: 'obtain token, malformed JSON', path: '/api/auth/token/', init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"username":' } },
  { name: 'obtain token', path: '/api/auth/token/', init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"username":"bob","password":"bob-pass-2"}' } },
  { name: 'logout, anonymous', path: '/api/auth/logout/', init: { method: 'POST' } },
]

/** Headers whose value is the same on every server (Date, Connection and Keep-Alive are the server's own). */
const COMPARED_HEADERS = ['content-type', 'allow', 'vary', 'www-authenticate', 'retry-after', 'link', 'content-length'] as const

/** A probe's answer with the server's own address replaced, so answers of two servers compare. */
async function answer(base: string, probe: Probe): Promise<Record<string, unknown>> {
  const response = await fetch(`${base}${probe.path}`, { redirect: 'manual', ...probe.init })
  const body = (await response.text()).replaceAll(base, 'http://SERVER')
  const headers: Record<string, string | null> = {}
  for (const name of COMPARED_HEADERS) headers[name] = response.headers.get(name)?.replaceAll(base, 'http://SERVER') ?? null
  // Bodies with the server's address in them differ in length by the port's digits; a
  // HEAD answer's length is the server's own framing (node:http sends none, Bun and Deno 0).
  if (body.includes('http://SERVER') || probe.init?.method === 'HEAD') delete headers['content-length']
  return { status: response.status, headers, setCookie: response.headers.getSetCookie().map((c) => c.split('=')[0]), body }
}

async function answers(base: string): Promise<Record<string, Record<string, unknown>>> {
  const out: Record<string, Record<string, unknown>> = {}
  for (const probe of PROBES) out[probe.name] = await answer(base, probe)
  return out
}

/** The databases each script serves: SQLite files, and PostgreSQL when `DATABASE_URL` is one. */
const BACKENDS = [
  { name: 'SQLite (each runtime’s own driver)', dialect: 'sqlite', available: true },
  { name: 'PostgreSQL', dialect: 'postgres', available: postgresAvailable() },
] as const

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`npm run start:bun and start:deno answer as npm start, on ${backend.name}`, () => {
    let dir: string
    const databases: TestDatabase[] = []
    let expected: Record<string, Record<string, unknown>>

    /** A fresh, empty database of this backend (each server migrates and seeds its own). */
    async function fresh(name: string): Promise<string> {
      if (backend.dialect === 'sqlite') return `sqlite:${join(dir, `${name}.sqlite3`)}`
      const database = await freshPostgres()
      databases.push(database)
      return database.url
    }

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'gatehouse-runtime-start-'))
      const node = await startScript('start', await fresh('node'))
      try {
        expect(node.log()).toContain(`(${backend.dialect}, fastify)`)
        expected = await answers(node.url)
      } finally {
        await node.stop()
      }
    }, 180_000)
    afterAll(async () => {
      for (const database of databases) await database.drop()
      rmSync(dir, { recursive: true, force: true })
    })

    for (const runtime of ['bun', 'deno'] as const) {
      it(`npm run start:${runtime}`, async () => {
        const server = await startScript(`start:${runtime}`, await fresh(runtime))
        try {
          expect(server.log()).toContain(`(${backend.dialect}, hono on ${runtime})`)
          expect(await answers(server.url)).toEqual(expected)
        } finally {
          await server.stop()
        }
      }, 180_000)
    }
  })
}
