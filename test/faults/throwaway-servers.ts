/**
 * Throwaway PostgreSQL and Redis servers for fault tests: each lives in its own
 * temporary folder on a spare loopback port (25500-25599), and only these are ever
 * stopped, never the machine's shared servers on 5432/6379.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)
const PG_BIN = '/usr/lib/postgresql/15/bin'

/** True when this machine can run a throwaway PostgreSQL and Redis. */
export function throwawayServersAvailable(): boolean {
  return existsSync(join(PG_BIN, 'initdb')) && existsSync('/usr/bin/redis-server')
}

async function portIsFree(port: number): Promise<boolean> {
  const server = createServer()
  return new Promise((ok) => {
    server.once('error', () => ok(false))
    server.listen(port, '127.0.0.1', () => server.close(() => ok(true)))
  })
}

/** A free port in 25500-25599, starting at a random place so parallel files rarely collide. */
async function sparePort(): Promise<number> {
  const start = Math.floor(Math.random() * 100)
  for (let i = 0; i < 100; i++) {
    const port = 25500 + ((start + i) % 100)
    if (await portIsFree(port)) return port
  }
  throw new Error('no free port in 25500-25599')
}

/** A server that can be stopped and started again on the same port and data. */
export interface ThrowawayServer {
  readonly port: number
  /** The connection URL (postgres://… or redis://…). */
  readonly url: string
  /**
   * Stops the server process (its data stays). PostgreSQL: `fast` (default) lets backends end
   * their work on SIGTERM; `immediate` kills them all at once (a crash: nothing more commits).
   */
  stop(mode?: 'fast' | 'immediate'): Promise<void>
  /** Starts it again on the same port and data. */
  start(): Promise<void>
  /** Freezes every process of the server (SIGSTOP): it accepts nothing, answers nothing. */
  freeze(): Promise<void>
  /** Undoes `freeze` (SIGCONT). */
  thaw(): Promise<void>
  /** Stops it and deletes its folder. */
  destroy(): Promise<void>
}

/** PIDs of `pid` and all its descendants (from /proc), so a freeze reaches every backend. */
async function processTree(pid: number): Promise<number[]> {
  const { stdout } = await run('ps', ['-e', '-o', 'pid=,ppid='])
  const children = new Map<number, number[]>()
  for (const line of stdout.trim().split('\n')) {
    const [p, pp] = line.trim().split(/\s+/).map(Number)
    if (p === undefined || pp === undefined) continue
    children.set(pp, [...(children.get(pp) ?? []), p])
  }
  const out: number[] = []
  const pending = [pid]
  while (pending.length > 0) {
    const next = pending.pop() as number
    out.push(next)
    pending.push(...(children.get(next) ?? []))
  }
  return out
}

function signalAll(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal)
    } catch {
      // already gone
    }
  }
}

/**
 * `initdb` in a temporary folder and `pg_ctl start` on a spare loopback port (trust
 * auth, fsync off). As root, both run as the `postgres` OS user (PostgreSQL refuses root).
 */
export async function startThrowawayPostgres(): Promise<ThrowawayServer> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-pg-'))
  const asRoot = process.getuid?.() === 0
  if (asRoot) chownSync(dir, Number((await run('id', ['-u', 'postgres'])).stdout.trim()), Number((await run('id', ['-g', 'postgres'])).stdout.trim()))
  const pgRun = (bin: string, args: string[]): Promise<{ stdout: string }> =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(PG_BIN, bin), ...args]) : run(join(PG_BIN, bin), args)
  const data = join(dir, 'data')
  await pgRun('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-N', '-E', 'UTF8'])
  const port = await sparePort()
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`
  const start = async (): Promise<void> => {
    await pgRun('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '30', 'start'])
  }
  const stop = async (mode: 'fast' | 'immediate' = 'fast'): Promise<void> => {
    await pgRun('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '30', 'stop'])
  }
  const postmaster = async (): Promise<number> => {
    const { stdout } = await run('head', ['-1', join(data, 'postmaster.pid')])
    // Never 0: processTree(0) would take in init and the runner's own process group.
    if (!/^[1-9][0-9]*$/.test(stdout.trim())) throw new Error(`no pid in ${join(data, 'postmaster.pid')}: ${JSON.stringify(stdout)}`)
    return Number(stdout.trim())
  }
  let frozen: number[] = []
  // If the test process dies without destroy() (a crash, a killed run), do not leave a
  // server behind on the port: stop it synchronously on the way out.
  const onExit = (): void => {
    signalAll(frozen, 'SIGCONT')
    try {
      const args = [join(PG_BIN, 'pg_ctl'), '-D', data, '-m', 'immediate', 'stop']
      if (asRoot) execFileSync('runuser', ['-u', 'postgres', '--', ...args], { stdio: 'ignore' })
      else execFileSync(args[0] as string, args.slice(1), { stdio: 'ignore' })
    } catch {
      // not running
    }
    rmSync(dir, { recursive: true, force: true })
  }
  process.once('exit', onExit)
  await start()
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    freeze: async () => {
      frozen = await processTree(await postmaster())
      signalAll(frozen, 'SIGSTOP')
    },
    thaw: async () => {
      signalAll(frozen, 'SIGCONT')
      frozen = []
    },
    destroy: async () => {
      process.off('exit', onExit)
      signalAll(frozen, 'SIGCONT')
      await stop().catch(() => undefined)
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * `redis-server` on a spare loopback port with its data in a temporary folder. `stop`
 * is `SHUTDOWN SAVE`, so sessions written before survive a stop and start, as they would
 * with a production Redis that persists.
 */
export async function startThrowawayRedis(): Promise<ThrowawayServer> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-redis-'))
  const port = await sparePort()
  let child: ChildProcess | null = null
  let frozen = false
  const start = async (): Promise<void> => {
    const proc = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--protected-mode', 'no'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    child = proc
    let output = ''
    await new Promise<void>((ok, fail) => {
      const onData = (chunk: Buffer): void => {
        output += chunk.toString()
        if (output.includes('Ready to accept connections')) {
          proc.stdout?.off('data', onData)
          proc.stdout?.resume()
          ok()
        }
      }
      proc.stdout?.on('data', onData)
      proc.stderr?.resume()
      proc.once('exit', (code) => fail(new Error(`redis-server exited (${code}): ${output}`)))
    })
  }
  const stop = async (): Promise<void> => {
    const proc = child
    if (proc === null || proc.exitCode !== null || proc.signalCode !== null) return
    const gone = new Promise<void>((ok) => proc.once('exit', () => ok()))
    await run('redis-cli', ['-p', String(port), 'shutdown', 'save'])
      .catch(() => proc.kill('SIGTERM'))
    await gone
    child = null
  }
  const onExit = (): void => {
    child?.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  }
  process.once('exit', onExit)
  await start()
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    start,
    stop,
    freeze: async () => {
      if (child?.pid !== undefined) process.kill(child.pid, 'SIGSTOP')
      frozen = true
    },
    thaw: async () => {
      if (frozen && child?.pid !== undefined) process.kill(child.pid, 'SIGCONT')
      frozen = false
    },
    destroy: async () => {
      process.off('exit', onExit)
      if (frozen && child?.pid !== undefined) process.kill(child.pid, 'SIGCONT')
      const proc = child as ChildProcess | null
      if (proc !== null && proc.exitCode === null && proc.signalCode === null) {
        const gone = new Promise<void>((ok) => proc.once('exit', () => ok()))
        proc.kill('SIGKILL')
        await gone
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
