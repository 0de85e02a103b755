/**
 * The Bun and Deno apps of docs/runtimes.md are examples/bun-app/app.ts and examples/deno-app/main.ts,
 * word for word, and each runs on its runtime (the binaries the npm packages install): SQLite
 * through the runtime's own driver, Hono on Bun.serve / Deno.serve, a 401 in DRF's shape, and
 * the client's address read from the runtime's server (it throttles per client).
 * (test/docs/ type-checks the page's blocks like every other.)
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { sectionBlocks } from '../docs/markdown-blocks.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

const APPS = [
  {
    runtime: 'bun',
    heading: '### Bun',
    file: 'examples/bun-app/app.ts',
    // Bun resolves `drf-gatehouse` to the sources through tsconfig.json's paths.
    args: ['examples/bun-app/app.ts'],
    // Loopback only: another address never matches, and the start times out.
    listening: /listening on (http:\/\/127\.0\.0\.1:\d+)\/?\s/,
  },
  {
    runtime: 'deno',
    heading: '### Deno',
    file: 'examples/deno-app/main.ts',
    // The page's permissions; the import map and sloppy imports only serve this checkout's sources.
    args: ['run', '--allow-net', '--allow-env', '--allow-read', '--allow-write', '--unstable-sloppy-imports', '--import-map=examples/reference-api/deno-imports.json', 'examples/deno-app/main.ts'],
    listening: /Listening on http:\/\/127\.0\.0\.1:(\d+)\//,
  },
] as const

/** Runs an app with `PORT=0` until its listening line; resolves to its base URL and a stop function. */
function start(app: (typeof APPS)[number], databaseUrl: string): Promise<{ url: string; stop(): Promise<void> }> {
  const env = { ...process.env, PORT: '0', DATABASE_URL: databaseUrl, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' }
  const child = spawn(join(ROOT, 'node_modules', '.bin', app.runtime), [...app.args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  const stop = (): Promise<void> =>
    new Promise((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done()
      child.once('exit', () => done())
      child.kill('SIGTERM')
    })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => void stop().then(() => reject(new Error(`${app.runtime} did not listen within 120 s:\n${output}`))), 120_000)
    const read = (chunk: Buffer): void => {
      output += chunk.toString('utf8')
      const match = app.listening.exec(output)
      if (match?.[1] === undefined) return
      clearTimeout(timer)
      // Both servers listen on loopback.
      const port = /^\d+$/.test(match[1]) ? match[1] : new URL(match[1]).port
      resolve({ url: `http://127.0.0.1:${port}`, stop })
    }
    child.stdout.on('data', read)
    child.stderr.on('data', read)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${app.runtime} exited (${String(code)}) before listening:\n${output}`))
    })
  })
}

describe('the docs/runtimes.md apps for Bun and Deno', () => {
  const page = readFileSync(join(ROOT, 'docs', 'runtimes.md'), 'utf8')

  for (const app of APPS) {
    it(`${app.heading.slice(4)}: the docs block is ${app.file}, word for word`, () => {
      const blocks = sectionBlocks(page, app.heading, 'docs/runtimes.md')
      expect(blocks).toHaveLength(1)
      expect(blocks[0]).toBe(readFileSync(join(ROOT, app.file), 'utf8').replace(/\n$/, ''))
    })

    it(`${app.heading.slice(4)}: runs on ${app.runtime} and answers`, async () => {
      const dir = mkdtempSync(join(tmpdir(), `gatehouse-docs-${app.runtime}-`))
      try {
        const server = await start(app, `sqlite:${join(dir, 'app.sqlite3')}`)
        try {
          const anonymous = await fetch(`${server.url}/api/me/`)
          expect(anonymous.status).toBe(401)
          expect(anonymous.headers.get('www-authenticate')).toBe('Token')
          expect(await anonymous.json()).toEqual({ detail: 'Authentication credentials were not provided.' })
          const hello = await fetch(`${server.url}/api/hello/`)
          expect(hello.status).toBe(200)
          // The peer address, from the runtime's server (an IPv6-mapped form on a dual-stack socket).
          expect(['127.0.0.1', '::ffff:127.0.0.1']).toContain(((await hello.json()) as { from: unknown }).from)
          // 3/min per client: its fourth request is throttled.
          const statuses = [(await fetch(`${server.url}/api/hello/`)).status, (await fetch(`${server.url}/api/hello/`)).status, (await fetch(`${server.url}/api/hello/`)).status]
          expect(statuses).toEqual([200, 200, 429])
        } finally {
          await server.stop()
        }
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }, 180_000)
  }
})
