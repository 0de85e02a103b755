/**
 * A Redis Cluster failover under load. A throwaway 3-master, 3-replica cluster (started by
 * scripts/ci-services.sh on spare loopback ports, in a temporary folder, so the shared one is
 * never touched) holds the reference API's sessions and failed-login counters. Steady traffic
 * (session requests over sessions on every master, failed Basic logins counted per user) runs
 * while the master holding the first session is killed (SIGKILL) and its replica promoted:
 *
 * - every answer is the usual one (200, 401) or 503, never another 5xx, and none waits past
 *   the command timeout (a generous bound: the machine may be loaded);
 * - within 10 s of the promotion every request succeeds again, without restarting anything;
 * - the session made before the kill (replicated before it) is still valid.
 *
 * Runs when redis-server and redis-cli are installed (CI installs them).
 */
import { execFile, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshSqlite } from '../helpers/databases.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { unavailable } from '../helpers/requirements.js'
import { call, login } from '../scale/http-client.js'

const run = promisify(execFile)
const script = join(import.meta.dirname, '../../scripts/ci-services.sh')
const available = ['redis-server', 'redis-cli'].every((bin) => spawnSync(bin, ['--version'], { stdio: 'ignore' }).status === 0)

/** The reference API's Redis command timeout here; a request is a hang past it plus this slack. */
const COMMAND_TIMEOUT_MS = 1_000
const HANG_MS = COMMAND_TIMEOUT_MS + 9_000
const USERS = [
  ['alice', 'alice-pass-1'],
  ['bob', 'bob-pass-2'],
  ['admin', 'admin-pass-4'],
] as const

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

async function portIsFree(port: number): Promise<boolean> {
  const server = createServer()
  return new Promise((ok) => {
    server.once('error', () => ok(false))
    server.listen(port, '127.0.0.1', () => server.close(() => ok(true)))
  })
}

/** Six free consecutive ports in 26000-26999 (and their cluster-bus ports, +10000). */
async function sparePorts(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 26_000 + 6 * Math.floor(Math.random() * 160)
    const ports = Array.from({ length: 6 }, (_, i) => base + i)
    let free = true
    for (const port of [...ports, ...ports.map((p) => p + 10_000)]) free &&= await portIsFree(port)
    if (free) return base
  }
  throw new Error('no six free ports in 26000-26999')
}

/** Waits until `condition` holds, polling; throws with `what` after `ms`. */
async function waitFor(what: string, ms: number, condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms
  for (;;) {
    if (await condition().catch(() => false)) return
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(200)
  }
}

/** The `CLUSTER NODES` lines of the node at `port`, parsed. */
async function clusterNodes(port: number): Promise<{ id: string; port: number; flags: string[]; master: string; slots: string[] }[]> {
  const redis = new Redis({ host: '127.0.0.1', port, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0, connectTimeout: 2_000 })
  redis.on('error', () => {})
  try {
    await redis.connect()
    const text = String(await redis.call('CLUSTER', 'NODES'))
    return text
      .trim()
      .split('\n')
      .map((line) => {
        const [id = '', address = '', flags = '', master = '', , , , , ...slots] = line.split(' ')
        return { id, port: Number(address.split('@')[0]?.split(':')[1]), flags: flags.split(','), master, slots }
      })
  } finally {
    redis.disconnect()
  }
}

/** A request and what came of it. */
interface Sample {
  /** When it was sent, and when its answer came. */
  readonly at: number
  readonly done: number
  readonly status: number | 'hang' | 'error'
}

describe.skipIf(unavailable('redis-server and redis-cli (Debian redis-server, redis-tools)', available))('Redis Cluster failover under load (throwaway 3+3 cluster)', () => {
  let dir = ''
  let base = 0
  let server: RunningReference | undefined

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-failover-'))
    base = await sparePorts()
    await run('bash', [script, 'redis-cluster'], {
      env: { ...process.env, GATEHOUSE_SERVICES_DIR: dir, REDIS_CLUSTER_PORT: String(base) },
      timeout: 120_000,
    })
    const nodes = Array.from({ length: 6 }, (_, i) => `127.0.0.1:${base + i}`).join(',')
    server = await startReference(freshSqlite(), {
      redisClusterNodes: nodes,
      redisPrefix: 'failover:',
      redisTimeoutMs: COMMAND_TIMEOUT_MS,
      // Failed Basic logins are counted in Redis (per username and per address).
      loginFailures: '100000/min',
    })
  }, 180_000)

  afterAll(async () => {
    await server?.close()
    for (let i = 0; i < 6; i++) {
      try {
        process.kill(pidIn(join(dir, `redis-${base + i}`, 'redis.pid')), 'SIGKILL')
      } catch {
        // Already gone (the killed master).
      }
    }
    if (dir !== '') rmSync(dir, { recursive: true, force: true })
  })

  it('answers 503 at most while a slot has no master, recovers by itself, and keeps earlier sessions', async () => {
    const baseUrl = server?.baseUrl ?? ''
    // Sessions on every master: keep logging in until each master holds at least one.
    const sessions: { user: string; sessionid: string; port: number }[] = []
    // A cluster just made may not yet show every replica attached in this node's view: wait
    // until each of the three masters holds slots and has a replica.
    let topology: Awaited<ReturnType<typeof clusterNodes>> = []
    await waitFor('three masters with slots, each with a replica', 60_000, async () => {
      topology = await clusterNodes(base)
      const withSlots = topology.filter((n) => n.flags.includes('master') && n.slots.length > 0)
      return withSlots.length === 3 && withSlots.every((m) => topology.some((n) => n.flags.includes('slave') && n.master === m.id))
    })
    const masters = topology.filter((n) => n.flags.includes('master'))
    const probe = new Redis({ host: '127.0.0.1', port: base })
    const masterOf = async (key: string): Promise<number> => {
      const slot = Number(await probe.call('CLUSTER', 'KEYSLOT', key))
      const owner = masters.find((m) =>
        m.slots.some((range) => {
          const [from = -1, to = from] = range.split('-').map(Number)
          return slot >= from && slot <= to
        }),
      )
      return owner?.port ?? -1
    }
    try {
      // A loaded machine may take a while to connect the API to the new cluster: wait for a first login.
      await waitFor('a first login on the cluster', 60_000, async () => {
        await login(baseUrl, 'alice', 'alice-pass-1')
        return true
      })
      for (let i = 0; sessions.length < 12 || new Set(sessions.map((s) => s.port)).size < 3; i++) {
        if (i > 60) throw new Error('sessions did not spread over the three masters')
        const [user, password] = USERS[i % USERS.length] ?? USERS[0]
        const cookies = await login(baseUrl, user, password)
        sessions.push({ user, sessionid: cookies.sessionid, port: await masterOf(`failover:session:${cookies.sessionid}`) })
      }
    } finally {
      probe.disconnect()
    }
    const victim = sessions[0]
    if (victim === undefined) throw new Error('no session')
    const victimMaster = masters.find((m) => m.port === victim.port)
    const replica = topology.find((n) => n.master === victimMaster?.id)
    if (victimMaster === undefined || replica === undefined) throw new Error('the cluster has no replica for the master of the first session')

    // The first session is on the replica before its master dies (replication is asynchronous).
    const replicaConnection = new Redis({ host: '127.0.0.1', port: replica.port })
    try {
      await replicaConnection.call('READONLY')
      await waitFor('the session on the replica', 20_000, async () => (await replicaConnection.exists(`failover:session:${victim.sessionid}`)) === 1)
    } finally {
      replicaConnection.disconnect()
    }

    // Steady traffic: 4 loops over every session, and failed Basic logins for names on every slot.
    const samples: Sample[] = []
    let running = true
    let n = 0
    const oneRequest = async (): Promise<Sample> => {
      const k = n++
      const at = Date.now()
      const session = sessions[k % sessions.length]
      try {
        const reply =
          k % 3 === 2
            ? await call(baseUrl, '/api/private/', {
                headers: { Authorization: `Basic ${Buffer.from(`nobody${k % 50}:wrong`).toString('base64')}` },
                timeoutMs: HANG_MS,
              })
            : await call(baseUrl, '/api/whoami/', { cookies: { sessionid: session?.sessionid ?? '' }, timeoutMs: HANG_MS })
        const expected = k % 3 === 2 ? 401 : 200
        const ok = reply.status === expected && (expected === 401 || (reply.body as { username?: string }).username === session?.user)
        return { at, done: Date.now(), status: ok ? expected : reply.status === expected ? 'error' : reply.status }
      } catch (error) {
        return { at, done: Date.now(), status: error instanceof Error && error.name === 'TimeoutError' ? 'hang' : 'error' }
      }
    }
    const loops = Array.from({ length: 4 }, async () => {
      while (running) {
        samples.push(await oneRequest())
        await sleep(5)
      }
    })

    try {
      await waitFor('traffic', 30_000, async () => samples.length >= 40)
      const pid = pidIn(join(dir, `redis-${victim.port}`, 'redis.pid'))
      const killedAt = Date.now()
      process.kill(pid, 'SIGKILL')

      // Promotion: a surviving node sees the replica as a master with slots.
      let promotedAt = 0
      await waitFor('the replica to be promoted', 60_000, async () => {
        const view = await clusterNodes(replica.port)
        const me = view.find((node) => node.id === replica.id)
        if (me?.flags.includes('master') !== true || me.slots.length === 0) return false
        promotedAt = Date.now()
        return true
      })

      // Recovery: a full round over every session and a failed login all answer as usual.
      let recoveredAt = 0
      await waitFor('every request to succeed again', 10_000, async () => {
        const round = await Promise.all(Array.from({ length: sessions.length * 3 }, () => oneRequest()))
        if (!round.every((s) => s.status === 200 || s.status === 401)) return false
        recoveredAt = Date.now()
        return true
      })
      // Some more traffic after recovery, then stop.
      const recoveredCount = samples.length
      await waitFor('traffic after recovery', 30_000, async () => samples.length >= recoveredCount + 40)
      running = false
      await Promise.all(loops)

      const counts = new Map<string, number>()
      for (const s of samples) counts.set(String(s.status), (counts.get(String(s.status)) ?? 0) + 1)
      const unavailable = samples.filter((s) => s.status === 503)
      const last503 = unavailable.length === 0 ? null : Math.max(...unavailable.map((s) => s.done))
      const slowest = Math.max(...samples.map((s) => s.done - s.at))
      console.log(
        `failover: ${samples.length} requests, statuses ${JSON.stringify(Object.fromEntries(counts))}; ` +
          `promotion seen ${promotedAt - killedAt} ms after the kill; last 503 answered ` +
          `${last503 === null ? 'never' : `${last503 - killedAt} ms after the kill (${last503 - promotedAt} ms from the promotion)`}; ` +
          `a full round succeeded ${recoveredAt - promotedAt} ms after the promotion; slowest answer ${slowest} ms`,
      )
      // Only the usual answers and 503: no other 5xx, no hang, no wrong user.
      expect([...counts.keys()].filter((status) => !['200', '401', '503'].includes(status))).toEqual([])
      // Nothing failed before the kill.
      expect(samples.filter((s) => s.done < killedAt && s.status === 503)).toEqual([])

      // The session from before the kill still names its user, on the promoted replica.
      const reply = await call(baseUrl, '/api/whoami/', { cookies: { sessionid: victim.sessionid } })
      expect(reply.status).toBe(200)
      expect(reply.body).toMatchObject({ username: victim.user, authenticated: true })
    } finally {
      running = false
      await Promise.all(loops)
    }
  }, 240_000)
})

/**
 * The pid in a daemon's pid file. Throws unless it is a positive integer: an empty file reads as
 * `Number('') === 0`, and `process.kill(0, …)` signals this whole process group (the test runner
 * and the CI script around it).
 */
function pidIn(pidFile: string): number {
  const text = readFileSync(pidFile, 'utf8').trim()
  if (!/^[1-9][0-9]*$/.test(text)) throw new Error(`no pid in ${pidFile}: ${JSON.stringify(text)}`)
  return Number(text)
}
