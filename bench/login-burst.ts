/**
 * Peak memory of the reference API under a burst of logins (issue 45 item 9): one instance
 * (`examples/reference-api/main.ts serve`) at the library's default scrypt cost (OWASP:
 * N=2^17, r=8, p=1, 128 MiB per check), then `--rounds` bursts of `--burst` concurrent
 * `POST /api/auth/token/`, a mix of right passwords, wrong ones and unknown users (every one
 * costs one scrypt check). The server's peak RSS is the kernel's high-water mark
 * (`VmHWM` in /proc/<pid>/status, Linux only, reset after start-up through clear_refs), so no
 * sample can miss the peak; RSS is also sampled every 50 ms (`peakSampled`).
 *
 *   npx tsx bench/login-burst.ts [--framework fastify] [--burst 64] [--rounds 3]
 *     [--password-checks N] [--password-queue N] [--scrypt-n N] [--database-url URL] [--json out.json]
 *
 * `--password-checks`/`--password-queue` set the reference API's GATEHOUSE_PASSWORD_CHECKS and
 * GATEHOUSE_PASSWORD_QUEUE (unset: the library's default budget, 2 at once and 32 waiting);
 * `--password-checks 1000 --password-queue 0` is about the old behaviour (libuv's 4 threads
 * bound it). `--database-url`: unset, a throwaway SQLite file; give PostgreSQL a throwaway
 * database (the instance seeds an empty one). `--scrypt-n`: a cheaper cost, to check the
 * script itself runs (the figure is only meaningful at the default). Prints JSON: the
 * configuration, RSS before, peak and after (MiB), answers by status, the slowest answer.
 *
 * Not a test: memory depends on the machine, Node and the allocator; run it on a quiet machine.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { startInstance } from '../scripts/multi-instance.js'

const { values: args } = parseArgs({
  options: {
    framework: { type: 'string', default: 'fastify' },
    burst: { type: 'string', default: '64' },
    rounds: { type: 'string', default: '3' },
    'password-checks': { type: 'string' },
    'password-queue': { type: 'string' },
    'scrypt-n': { type: 'string' },
    'database-url': { type: 'string' },
    json: { type: 'string' },
  },
})

function positive(name: string, raw: string): number {
  const n = Number(raw)
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got "${raw}"`)
  return n
}

const burst = positive('burst', args.burst)
const rounds = positive('rounds', args.rounds)

/** VmRSS and VmHWM (peak) of a process, in MiB, from /proc. */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN)
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 }
}

/** The seed users' passwords (examples/reference-api/seed.ts), wrong ones, and unknown names. */
function credentials(i: number): { username: string; password: string } {
  switch (i % 4) {
    case 0:
      return { username: 'alice', password: 'alice-pass-1' }
    case 1:
      return { username: 'bob', password: 'bob-pass-2' }
    case 2:
      return { username: 'alice', password: `wrong-${i}` }
    default:
      return { username: `nobody-${i}`, password: 'x' }
  }
}

async function login(baseUrl: string, i: number): Promise<{ status: number; ms: number }> {
  const start = performance.now()
  try {
    const response = await fetch(`${baseUrl}/api/auth/token/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(credentials(i)),
      signal: AbortSignal.timeout(120_000),
    })
    await response.arrayBuffer()
    return { status: response.status, ms: performance.now() - start }
  } catch {
    return { status: 0, ms: performance.now() - start }
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'login-burst-'))
  const databaseUrl = args['database-url'] ?? `sqlite:${join(dir, 'burst.sqlite3')}`
  const env: Record<string, string> = {
    DATABASE_URL: databaseUrl,
    // Only what this run sets: the shell's own settings would change what is measured.
    REDIS_URL: '',
    REDIS_CLUSTER_NODES: '',
    GATEHOUSE_LOGIN_FAILURES: '',
    GATEHOUSE_TOKEN_CACHE_TTL_MS: '',
    GATEHOUSE_FRAMEWORK: args.framework,
    GATEHOUSE_SCRYPT_N: args['scrypt-n'] ?? '',
    GATEHOUSE_PASSWORD_CHECKS: args['password-checks'] ?? '',
    GATEHOUSE_PASSWORD_QUEUE: args['password-queue'] ?? '',
  }
  const instance = await startInstance({ env, startTimeoutMs: 120_000 })
  const pid = instance.child.pid
  if (pid === undefined) throw new Error('the reference API has no pid')
  try {
    // One login first: the code paths, the pool and scrypt's first allocation are warm.
    await login(instance.baseUrl, 0)
    // VmHWM counts from the process's start (the seed's hashes, on a fresh database): reset it
    // (Linux's clear_refs "5") so the peak is the burst's. Without the right, the sampled peak only.
    let peakReset = true
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, '5')
    } catch {
      peakReset = false
    }
    const before = memory(pid)
    let sampledMax = before.rss
    const sampler = setInterval(() => (sampledMax = Math.max(sampledMax, memory(pid).rss)), 50)
    const statuses: Record<string, number> = {}
    let slowest = 0
    const started = performance.now()
    for (let round = 0; round < rounds; round++) {
      const answers = await Promise.all(Array.from({ length: burst }, (_, i) => login(instance.baseUrl, round * burst + i)))
      for (const { status, ms } of answers) {
        statuses[status] = (statuses[status] ?? 0) + 1
        slowest = Math.max(slowest, ms)
      }
    }
    const seconds = (performance.now() - started) / 1000
    clearInterval(sampler)
    const after = memory(pid)
    const report = {
      framework: args.framework,
      database: args['database-url'] === undefined ? 'sqlite (throwaway file)' : 'given URL',
      scryptN: args['scrypt-n'] === undefined ? 2 ** 17 : Number(args['scrypt-n']),
      passwordChecks: args['password-checks'] ?? 'default (2)',
      passwordQueue: args['password-queue'] ?? 'default (32)',
      uvThreadpoolSize: process.env['UV_THREADPOOL_SIZE'] ?? 'default (4)',
      node: process.version,
      burst,
      rounds,
      seconds: Number(seconds.toFixed(2)),
      statuses,
      slowestMs: Math.round(slowest),
      rssMiB: {
        beforeBurst: Math.round(before.rss),
        peak: peakReset ? Math.round(after.peak) : null,
        peakSampled: Math.round(sampledMax),
        after: Math.round(after.rss),
      },
    }
    console.log(JSON.stringify(report, null, 2))
    if (args.json !== undefined) writeFileSync(args.json, `${JSON.stringify(report, null, 2)}\n`)
    if (statuses['0'] !== undefined || Object.keys(statuses).some((s) => s.startsWith('5') && s !== '503')) process.exitCode = 1
  } finally {
    await instance.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
