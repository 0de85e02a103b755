/**
 * A PgBouncer of a test's own, in transaction pooling mode, on a spare loopback port in front
 * of the PostgreSQL of `DATABASE_URL` (trust authentication, as the test server's). Stopped
 * by its own pid; never any other PgBouncer.
 */
import { execFile } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)
const PGBOUNCER = '/usr/sbin/pgbouncer'

/** True when PgBouncer is installed. */
export function pgbouncerAvailable(): boolean {
  return existsSync(PGBOUNCER)
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  const address = server.address()
  await new Promise((ok) => server.close(ok))
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

export interface ThrowawayPgbouncer {
  /** `url` (a `postgres://` URL of the upstream server) with host and port replaced by PgBouncer's. */
  through(url: string): string
  stop(): Promise<void>
}

/**
 * Starts PgBouncer in front of the server of `upstreamUrl`. `ignoreStartupParameters`: the
 * startup parameters it accepts and drops (by default it refuses a connection that sends
 * one it does not know, such as `statement_timeout`). `serverLoginRetrySeconds`: how long it
 * waits after a failed server login before it tries the server again (15 s as installed).
 */
export async function startPgbouncer(
  upstreamUrl: string,
  options: { ignoreStartupParameters?: readonly string[]; serverConnections?: number; serverLoginRetrySeconds?: number } = {},
): Promise<ThrowawayPgbouncer> {
  const upstream = new URL(upstreamUrl)
  const dir = mkdtempSync(join(tmpdir(), 'gh-pgbouncer-'))
  const port = await freePort()
  const ini = [
    '[databases]',
    `* = host=${upstream.hostname} port=${upstream.port || '5432'}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${join(dir, 'users.txt')}`,
    'pool_mode = transaction',
    `default_pool_size = ${options.serverConnections ?? 2}`,
    'max_client_conn = 100',
    `logfile = ${join(dir, 'pgbouncer.log')}`,
    `pidfile = ${join(dir, 'pgbouncer.pid')}`,
    ...(options.ignoreStartupParameters === undefined ? [] : [`ignore_startup_parameters = ${options.ignoreStartupParameters.join(',')}`]),
    ...(options.serverLoginRetrySeconds === undefined ? [] : [`server_login_retry = ${options.serverLoginRetrySeconds}`]),
  ].join('\n')
  writeFileSync(join(dir, 'pgbouncer.ini'), `${ini}\n`)
  writeFileSync(join(dir, 'users.txt'), `"${decodeURIComponent(upstream.username || 'postgres')}" ""\n`)
  // PgBouncer refuses to run as root: as root, it runs as the postgres OS user.
  const asRoot = process.getuid?.() === 0
  if (asRoot) {
    const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])])
    for (const path of [dir, join(dir, 'pgbouncer.ini'), join(dir, 'users.txt')]) chownSync(path, Number(uid.stdout.trim()), Number(gid.stdout.trim()))
  }
  const args = ['-d', join(dir, 'pgbouncer.ini')]
  await (asRoot ? run('runuser', ['-u', 'postgres', '--', PGBOUNCER, ...args]) : run(PGBOUNCER, args))
  const pid = await daemonPid(join(dir, 'pgbouncer.pid'))
  return {
    through(url) {
      const parsed = new URL(url)
      parsed.hostname = '127.0.0.1'
      parsed.port = String(port)
      return parsed.toString()
    },
    async stop() {
      try {
        process.kill(pid, 'SIGINT')
      } catch {
        // already gone
      }
      for (let i = 0; i < 100; i++) {
        try {
          process.kill(pid, 0)
        } catch {
          break
        }
        await new Promise((ok) => setTimeout(ok, 50))
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * The daemon's pid, once its pid file holds one. The file exists before the pid is written in
 * it, and `Number('')` is 0: `process.kill(0, 'SIGINT')` in `stop()` would then interrupt this
 * whole process group (vitest and the CI script that runs it, exit code 130).
 */
async function daemonPid(pidFile: string): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const text = existsSync(pidFile) ? readFileSync(pidFile, 'utf8').trim() : ''
    if (/^[1-9][0-9]*$/.test(text)) return Number(text)
    await new Promise((ok) => setTimeout(ok, 50))
  }
  throw new Error(`PgBouncer wrote no pid to ${pidFile} within 10 s`)
}
