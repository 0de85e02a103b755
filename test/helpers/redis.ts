import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:net'
import { Redis } from 'ioredis'

/** `REDIS_URL`, or `undefined` when this machine has no Redis for tests (cases are then skipped). */
export const REDIS_URL: string | undefined = process.env['REDIS_URL'] || undefined

/** A key prefix no other test run uses: tests never flush the shared server. */
export function uniquePrefix(): string {
  return `gatehouse-test:${randomBytes(6).toString('hex')}:`
}

/** Deletes every key under `prefix` (SCAN + DEL, never FLUSHDB). */
export async function deletePrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 })
  try {
    let cursor = '0'
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500)
      cursor = next
      if (keys.length > 0) await redis.del(...keys)
    } while (cursor !== '0')
  } finally {
    redis.disconnect()
  }
}

/** A loopback port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

/** A throwaway redis-server on `port` (no persistence), for fault tests. */
export interface ThrowawayRedis {
  readonly url: string
  stop(): Promise<void>
}

/** Starts `redis-server` on `port` and waits until it answers PING. */
export async function startThrowawayRedis(port: number): Promise<ThrowawayRedis> {
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    { stdio: 'ignore' },
  )
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const url = `redis://127.0.0.1:${port}`
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null })
  probe.on('error', () => {})
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await probe.connect()
        await probe.ping()
        break
      } catch (error) {
        if (attempt > 100) throw error
        probe.disconnect()
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }
  } finally {
    probe.disconnect()
  }
  return {
    url,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}

/**
 * The session keys under `prefix` (the reference API's `gatehouse:session:`), without the
 * per-user index sets (`<prefix>user:<id>`) that the Redis session store keeps beside them.
 */
export async function sessionKeys(redis: Redis, prefix = 'gatehouse:session:'): Promise<string[]> {
  return (await redis.keys(`${prefix}*`)).filter((key) => !key.startsWith(`${prefix}user:`))
}
