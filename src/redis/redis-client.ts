import { createHash } from 'node:crypto'
import { Redis } from 'ioredis'
import { StoreUnavailable } from '../core/store-faults.js'

/**
 * The few Redis operations gatehouse's stores use. It is our own shape, not a
 * subset of one client's API, because ioredis and node-redis disagree on
 * `eval`'s signature; `fromIoredis()` adapts ioredis, and any other client needs
 * a similar few lines.
 */
export interface RedisLike {
  /** Runs a Lua script atomically (EVALSHA, falling back to EVAL when the server lacks it). */
  evalScript(script: string, keys: readonly string[], args: readonly string[]): Promise<unknown>
  get(key: string): Promise<string | null>
  /** SET with an expiry in milliseconds (`PX`); `ttlMs` is a positive integer. */
  set(key: string, value: string, ttlMs: number): Promise<void>
  del(key: string): Promise<void>
}

/** The ioredis methods `fromIoredis` needs (a `Redis` or `Cluster` instance has them). */
export type IoredisLike = Pick<Redis, 'evalsha' | 'eval' | 'get' | 'set' | 'del'>

/** SHA-1 of each script, computed once. */
const SHAS = new Map<string, string>()
function sha1(script: string): string {
  let sha = SHAS.get(script)
  if (sha === undefined) {
    sha = createHash('sha1').update(script).digest('hex')
    SHAS.set(script, sha)
  }
  return sha
}

/**
 * Adapts an ioredis client (which you own, configure and close) to `RedisLike`.
 *
 * @example
 * const store = new RedisThrottleStore({ redis: fromIoredis(new Redis(process.env.REDIS_URL)) })
 */
export function fromIoredis(client: IoredisLike): RedisLike {
  return {
    async evalScript(script, keys, args) {
      try {
        return await client.evalsha(sha1(script), keys.length, ...keys, ...args)
      } catch (error) {
        // A restarted or flushed server has lost its script cache: send the body once.
        if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error
        return await client.eval(script, keys.length, ...keys, ...args)
      }
    },
    async get(key) {
      return client.get(key)
    },
    async set(key, value, ttlMs) {
      await client.set(key, value, 'PX', ttlMs)
    },
    async del(key) {
      await client.del(key)
    },
  }
}

/** Options for `createRedisClient`. */
export interface RedisClientOptions {
  /** A command not answered within this many ms fails (and the request answers 503). @default 2000 */
  readonly commandTimeoutMs?: number
  /** A TCP connect not completed within this many ms fails. @default 2000 */
  readonly connectTimeoutMs?: number
  /** Longest wait between two reconnect attempts; backoff doubles from 50 ms up to it. @default 2000 */
  readonly maxReconnectDelayMs?: number
  /** Told once per outage that Redis cannot be reached. @default console.warn */
  readonly onError?: (error: Error) => void
}

/** A `RedisLike` that owns its ioredis connection. */
export interface RedisClient extends RedisLike {
  /** The underlying ioredis connection (for commands gatehouse does not wrap). */
  readonly connection: Redis
  /** PUBLISH `message` on `channel`; answers how many subscribers received it. */
  publish(channel: string, message: string): Promise<number>
  /** Closes the connection; pending commands fail. */
  close(): Promise<void>
}

/**
 * Connects to `url` (`redis://[:password@]host:port[/db]`, or `rediss://`) with
 * settings that keep requests fast while Redis is down: no offline queue (a
 * command while disconnected fails at once instead of waiting), one retry per
 * request, no automatic re-send after a reconnect (a throttle hit could count
 * twice), a command timeout, and reconnection with capped exponential backoff,
 * so the client recovers by itself when Redis returns.
 *
 * Commands sent before the first connection completes wait for it (up to the
 * command timeout) rather than failing, so a process that starts together with
 * Redis does not refuse its first requests.
 *
 * @example
 * const redis = createRedisClient(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')
 * const sessions = new RedisSessionStore({ redis })
 * // on shutdown: await redis.close()
 */
export function createRedisClient(url: string, options: RedisClientOptions = {}): RedisClient {
  const commandTimeoutMs = options.commandTimeoutMs ?? 2_000
  const maxDelay = options.maxReconnectDelayMs ?? 2_000
  const onError = options.onError ?? ((error: Error) => console.warn(`gatehouse: Redis unavailable: ${error.message}`))
  const connection = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    autoResendUnfulfilledCommands: false,
    commandTimeout: commandTimeoutMs,
    connectTimeout: options.connectTimeoutMs ?? 2_000,
    retryStrategy: (attempt: number) => Math.min(50 * 2 ** Math.min(attempt - 1, 16), maxDelay),
  })

  // 'initial' until the first connection succeeds or fails; only then do commands wait.
  let phase: 'initial' | 'settled' = 'initial'
  let reported = false
  const firstOutcome = new Promise<void>((resolve) => {
    const settle = (): void => {
      phase = 'settled'
      connection.off('ready', settle)
      connection.off('close', settle)
      resolve()
    }
    connection.once('ready', settle)
    connection.once('close', settle)
  })
  connection.on('ready', () => {
    reported = false
  })
  connection.on('error', (error: Error) => {
    // Without a listener ioredis prints every reconnect failure; report once per outage.
    if (reported) return
    reported = true
    onError(error)
  })

  const whenStarted = async (): Promise<void> => {
    if (phase === 'settled') return
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, commandTimeoutMs)
    })
    await Promise.race([firstOutcome, timeout])
    clearTimeout(timer)
  }

  const adapted = fromIoredis(connection)
  return {
    connection,
    async evalScript(script, keys, args) {
      await whenStarted()
      return adapted.evalScript(script, keys, args)
    },
    async get(key) {
      await whenStarted()
      return adapted.get(key)
    },
    async set(key, value, ttlMs) {
      await whenStarted()
      return adapted.set(key, value, ttlMs)
    },
    async del(key) {
      await whenStarted()
      return adapted.del(key)
    },
    async publish(channel, message) {
      await whenStarted()
      return connection.publish(channel, message)
    },
    async close() {
      if (connection.status === 'ready') {
        try {
          await connection.quit()
          return
        } catch {
          // Fall through: drop the socket.
        }
      }
      connection.disconnect()
    },
  }
}

/**
 * Wraps any failure of a Redis call as `StoreUnavailable` (503): connection
 * refused, timeouts, a disconnected client, or a server error reply. The cause
 * and the operation (`'session load'`) are kept for logs; the client never sees
 * the driver's text.
 */
export function redisUnavailable(error: unknown, operation = 'command'): StoreUnavailable {
  return new StoreUnavailable('redis', operation, error)
}
