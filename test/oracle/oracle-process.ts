import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'

/*
 * Starting the DRF oracle as a process, without vitest: vitest's global setup
 * (test/oracle/simplejwt/simplejwt-oracle-setup.ts) starts oracles too, and cannot import vitest.
 */

/**
 * Where the DRF 3.14 oracle's start script lives: `ORACLE_RUN_SH`, else the
 * `shared/` folder beside this repository (as CI lays it out), else /work/shared.
 */
export const ORACLE_RUN_SH: string =
  process.env['ORACLE_RUN_SH'] ??
  [fileURLToPath(new URL('../../../shared/oracle-drf/run.sh', import.meta.url)), '/work/shared/oracle-drf/run.sh'].find(
    (candidate) => existsSync(candidate),
  ) ??
  'oracle-drf/run.sh (not found)'

/** True when Debian's Django + DRF and the oracle script are present. */
export function oracleAvailable(): boolean {
  return (
    spawnSync('/usr/bin/python3', ['-c', 'import rest_framework, django'], { stdio: 'ignore' }).status === 0 &&
    existsSync(ORACLE_RUN_SH)
  )
}

/** A free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0))
    })
  })
}

/** A running oracle on a fresh seeded database. */
export interface RunningOracle {
  readonly baseUrl: string
  close(): Promise<void>
}

/** Where `startOracle` finds the oracle and what it adds to its environment. */
export interface OracleStartOptions {
  /** @default 60_000 */
  readonly timeoutMs?: number
  /** A copy's start script (test/oracle/simplejwt/simplejwt-oracle.ts makes one with simplejwt added). @default ORACLE_RUN_SH */
  readonly runSh?: string
  readonly env?: Readonly<Record<string, string>>
  /**
   * How long `close()` lets gunicorn stop gracefully before killing the process group. A caller
   * inside vitest's global teardown must finish within its `teardownTimeout` (10 s), after which
   * vitest exits and leaves the oracle running. @default 10_000
   */
  readonly graceMs?: number
}

/**
 * Starts the oracle in its own process group, waits until it answers, and
 * returns a handle whose `close()` ends that group (and only it).
 */
export async function startOracle(options: OracleStartOptions = {}): Promise<RunningOracle> {
  const { timeoutMs = 60_000, runSh = ORACLE_RUN_SH, env = {}, graceMs = 10_000 } = options
  const port = await freePort()
  const child = spawn('bash', [runSh, String(port)], { detached: true, stdio: 'ignore', env: { ...process.env, ...env } })
  const baseUrl = `http://127.0.0.1:${port}`
  let exited = false
  child.once('exit', () => {
    exited = true
  })
  const close = async (): Promise<void> => {
    if (exited || child.pid === undefined) return
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    try {
      process.kill(-child.pid, 'SIGTERM')
    } catch {
      return
    }
    const stopped = await Promise.race([gone.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), graceMs))])
    if (stopped) return
    try {
      process.kill(-child.pid, 'SIGKILL')
    } catch {
      return
    }
    await Promise.race([gone, new Promise((r) => setTimeout(r, 2_000))])
  }
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (exited) throw new Error('the DRF oracle exited during start-up')
    try {
      await fetch(`${baseUrl}/api/whoami/`)
      return { baseUrl, close }
    } catch {
      if (Date.now() > deadline) {
        await close()
        throw new Error(`the DRF oracle did not answer at ${baseUrl}`)
      }
      await new Promise((r) => setTimeout(r, 250))
    }
  }
}
