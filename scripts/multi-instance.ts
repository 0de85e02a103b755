/**
 * Runs N reference-API processes on one database (and one Redis) behind nginx, all on
 * loopback ports: design.md's scale-out picture on one machine.
 *
 *   npx tsx scripts/multi-instance.ts --instances 3 [--port 18500]
 *
 * DATABASE_URL (PostgreSQL for a real scale-out; SQLite works for a quick look) and
 * REDIS_URL come from the environment. Prints the nginx base URL and each instance's
 * URL, and stops everything on Ctrl-C / SIGTERM. Tests and benchmarks use
 * `startCluster` / `startInstance` instead.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository root (this file lives in `scripts/`). */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')

/** Options for one reference-API process. */
export interface InstanceOptions {
  /** Port to listen on; 0 (default) lets the OS pick, read back from the server's banner. */
  readonly port?: number
  /** Extra environment (DATABASE_URL, REDIS_URL, GATEHOUSE_*), on top of this process's. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Give up waiting for the banner after this many ms (a busy machine compiles slowly). @default 60000 */
  readonly startTimeoutMs?: number
  /**
   * Another server script to run instead of the reference API (benchmarks' hand-written
   * baseline): its path and arguments; it must print `listening on http://host:port`.
   */
  readonly script?: readonly string[]
  /**
   * Another checkout of the repository to run the reference API from (benchmarks compare a
   * commit before a change in the same run): its `examples/reference-api/main.ts`, in it. @default this one
   */
  readonly root?: string
  /** A command to run node under (benchmarks: `valgrind --tool=callgrind …`); its pid is then the wrapper's, which valgrind is. */
  readonly wrapper?: readonly string[]
}

/** A running `reference-api/main.ts serve` child process. */
export interface Instance {
  readonly port: number
  readonly baseUrl: string
  readonly child: ChildProcess
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string
  /** Resolves with the exit code (or the signal's name) once the process has exited. */
  readonly exited: Promise<number | string>
  /** Sends `signal` (default SIGTERM) and waits for the exit; SIGKILL after `graceMs`. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<number | string>
}

/** Children still running: killed if this process exits without stopping them (a crashed test). */
const LIVE_CHILDREN = new Set<ChildProcess>()
process.once('exit', () => {
  for (const child of LIVE_CHILDREN) child.kill('SIGKILL')
})

function track(child: ChildProcess): void {
  LIVE_CHILDREN.add(child)
  child.once('exit', () => LIVE_CHILDREN.delete(child))
}

/** This process's environment with `extra` on top; a key set to `undefined` is removed. */
function mergeEnv(extra: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries({ ...process.env, ...extra })) if (value !== undefined) env[key] = value
  return env
}

/** Starts one reference-API process and waits until it listens. */
export async function startInstance(options: InstanceOptions = {}): Promise<Instance> {
  const [command = process.execPath, ...wrapperArgs] = options.wrapper === undefined ? [] : [...options.wrapper, process.execPath]
  const child = spawn(
    command,
    [...wrapperArgs, '--import', 'tsx', ...(options.script ?? [join(options.root ?? ROOT, 'examples', 'reference-api', 'main.ts'), 'serve']), '--port', String(options.port ?? 0)],
    { cwd: options.root ?? ROOT, env: mergeEnv(options.env ?? {}), stdio: ['ignore', 'pipe', 'pipe'] },
  )
  track(child)
  let output = ''
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  const exited = new Promise<number | string>((done) => {
    child.once('exit', (code, signal) => done(code ?? signal ?? 'unknown'))
  })
  const port = await new Promise<number>((ok, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      fail(new Error(`reference API did not start within ${options.startTimeoutMs ?? 60_000} ms:\n${output}`))
    }, options.startTimeoutMs ?? 60_000)
    const onData = (): void => {
      const match = /listening on http:\/\/[^\s]*:(\d+)/.exec(output)
      if (match?.[1] === undefined) return
      clearTimeout(timer)
      child.stdout?.off('data', onData)
      ok(Number(match[1]))
    }
    child.stdout?.on('data', onData)
    void exited.then((code) => {
      clearTimeout(timer)
      fail(new Error(`reference API exited (${code}) before listening:\n${output}`))
    })
  })
  const stop = async (signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<number | string> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal)
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
      const code = await exited
      clearTimeout(timer)
      return code
    }
    return exited
  }
  return { port, baseUrl: `http://127.0.0.1:${port}`, child, output: () => output, exited, stop }
}

/** A free loopback port (bound then released: fine for a test or a script on one machine). */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((ok) => server.close(() => ok()))
  return port
}

/** The nginx configuration: round robin over the instances, client address in X-Forwarded-For. */
export function nginxConfig(options: { dir: string; listenPort: number; upstreamPorts: readonly number[]; runAsRoot: boolean }): string {
  const { dir } = options
  const servers = options.upstreamPorts.map((p) => `    server 127.0.0.1:${p} max_fails=0;`).join('\n')
  return `# generated by scripts/multi-instance.ts
${options.runAsRoot ? 'user root;\n' : ''}worker_processes 1;
error_log ${dir}/error.log warn;
pid ${dir}/nginx.pid;
events { worker_connections 4096; }
http {
  access_log off;
  # nginx closes a client connection after 1000 requests by default; a load generator racing
  # that close counts a connection error, so allow long-lived keep-alive connections.
  keepalive_requests 1000000;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream gatehouse {
${servers}
    keepalive 128;
    keepalive_requests 1000000;
  }
  server {
    listen 127.0.0.1:${options.listenPort};
    location / {
      proxy_pass http://gatehouse;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      # The instances trust X-Remote-User from loopback peers, nginx included: never pass a client's copy.
      proxy_set_header X-Remote-User "";
      proxy_buffering off;
    }
  }
}
`
}

/** Options for `startCluster`. */
export interface ClusterOptions {
  /** How many reference-API processes. @default 2 */
  readonly instances?: number
  /** The shared DATABASE_URL (PostgreSQL for a real scale-out). */
  readonly databaseUrl: string
  /** The shared REDIS_URL (sessions and throttle counters), if any. */
  readonly redisUrl?: string | undefined
  /** nginx's loopback port. @default a free port */
  readonly port?: number
  /** Extra environment for every instance (e.g. a Redis key prefix, timeouts). */
  readonly env?: Readonly<Record<string, string | undefined>>
}

/** N instances behind nginx. */
export interface Cluster {
  /** nginx's base URL: requests go round robin to the instances. */
  readonly baseUrl: string
  readonly instances: readonly Instance[]
  /** The folder holding nginx's configuration and logs. */
  readonly dir: string
  close(): Promise<void>
}

async function waitForHttp(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      const response = await fetch(url)
      await response.arrayBuffer()
      if (response.status < 500) return
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`)
    await new Promise((ok) => setTimeout(ok, 50))
  }
}

/**
 * Starts `instances` reference-API processes on one database and Redis and nginx in
 * front of them. The first instance starts alone (it migrates and seeds the database),
 * the others after it. Every instance gets `GATEHOUSE_NUM_PROXIES=1`, so throttles key
 * on the client address nginx appends to X-Forwarded-For, not on what a client sends.
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const count = options.instances ?? 2
  if (!Number.isInteger(count) || count < 1) throw new Error(`instances must be a positive integer, got ${count}`)
  const env = {
    GATEHOUSE_NUM_PROXIES: '1',
    // Every instance must sign cursors with the same key, or a cursor from one is invalid on another.
    GATEHOUSE_SECRET: randomBytes(32).toString('hex'),
    ...options.env,
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redisUrl,
  }
  const instances: Instance[] = []
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-nginx-'))
  let nginx: ChildProcess | null = null
  const close = async (): Promise<void> => {
    if (nginx !== null && nginx.exitCode === null && nginx.signalCode === null) {
      const proc = nginx
      const gone = new Promise<void>((ok) => proc.once('exit', () => ok()))
      proc.kill('SIGQUIT')
      const timer = setTimeout(() => proc.kill('SIGKILL'), 5000)
      await gone
      clearTimeout(timer)
    }
    await Promise.all(instances.map((i) => i.stop()))
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    instances.push(await startInstance({ env }))
    instances.push(...(await Promise.all(Array.from({ length: count - 1 }, () => startInstance({ env })))))
    const listenPort = options.port ?? (await freePort())
    for (const sub of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, sub))
    const conf = join(dir, 'nginx.conf')
    writeFileSync(
      conf,
      nginxConfig({ dir, listenPort, upstreamPorts: instances.map((i) => i.port), runAsRoot: process.getuid?.() === 0 }),
    )
    const proc = spawn('nginx', ['-e', join(dir, 'error.log'), '-p', dir, '-c', conf, '-g', 'daemon off;'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    nginx = proc
    track(proc)
    let nginxErr = ''
    proc.stderr?.setEncoding('utf8').on('data', (c: string) => (nginxErr += c))
    const failed = new Promise<never>((_ok, fail) =>
      proc.once('exit', (code) => {
        let log = ''
        try {
          log = readFileSync(join(dir, 'error.log'), 'utf8')
        } catch {
          // no log yet
        }
        fail(new Error(`nginx exited (${code}): ${nginxErr}${log}`))
      }),
    )
    failed.catch(() => undefined)
    const baseUrl = `http://127.0.0.1:${listenPort}`
    await Promise.race([waitForHttp(`${baseUrl}/api/whoami/`, 15_000), failed])
    return { baseUrl, instances, dir, close }
  } catch (error) {
    await close()
    throw error
  }
}

function parseArgs(argv: readonly string[]): { instances: number; port: number | undefined } {
  let instances = 2
  let port: number | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    const value = argv[i + 1]
    if ((arg === '--instances' || arg === '-n') && value !== undefined) {
      instances = Number(value)
      i++
    } else if ((arg === '--port' || arg === '-p') && value !== undefined) {
      port = Number(value)
      i++
    } else {
      throw new Error(`usage: multi-instance.ts [--instances N] [--port P] (unknown argument "${arg}")`)
    }
  }
  return { instances, port }
}

async function runCli(): Promise<void> {
  const { instances, port } = parseArgs(process.argv.slice(2))
  const databaseUrl = process.env['DATABASE_URL']
  if (databaseUrl === undefined || databaseUrl === '') {
    throw new Error('set DATABASE_URL (a postgres:// URL for a real scale-out) and REDIS_URL')
  }
  if (!/^postgres(ql)?:/.test(databaseUrl)) console.warn('warning: DATABASE_URL is not PostgreSQL; instances share one SQLite file')
  if (process.env['REDIS_URL'] === undefined) console.warn('warning: REDIS_URL is unset; sessions/throttles are not shared')
  const cluster = await startCluster({ instances, databaseUrl, redisUrl: process.env['REDIS_URL'], ...(port === undefined ? {} : { port }) })
  console.log(`nginx: ${cluster.baseUrl}`)
  for (const [i, instance] of cluster.instances.entries()) console.log(`instance ${i + 1}: ${instance.baseUrl} (pid ${instance.child.pid})`)
  console.log('Ctrl-C stops everything.')
  let stopping = false
  const stop = (): void => {
    if (stopping) return
    stopping = true
    console.log('stopping nginx and the instances…')
    cluster.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error)
        process.exit(1)
      },
    )
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runCli().catch((error: unknown) => {
    console.error(`multi-instance: ${error instanceof Error ? error.message : String(error)}`)
    process.exit(1)
  })
}
