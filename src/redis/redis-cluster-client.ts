import type { ConnectionOptions } from 'node:tls'
import { Cluster, Redis, type RedisOptions } from 'ioredis'
import { redactConfigValue } from '../core/redact.js'
import { fromIoredis, type RedisClientOptions, type RedisLike } from './redis-client.js'

/** A node connection's options. ioredis 6 types `replyMapping` as optional-or-undefined where its constructor wants it exact: no gatehouse code sets it. */
type NodeOptions = Omit<RedisOptions, 'replyMapping'>

/** One seed node of a Redis Cluster. */
export interface RedisClusterNode {
  readonly host: string
  readonly port: number
}

/** What `parseRedisClusterNodes` reads from a `REDIS_CLUSTER_NODES`-style list. */
export interface RedisClusterSeeds {
  readonly nodes: readonly RedisClusterNode[]
  /** From the first `redis://user:password@…` entry, if any. */
  readonly username?: string
  readonly password?: string
  /** True when an entry is a `rediss://` URL. */
  readonly tls: boolean
}

/** Options for `createRedisClusterClient`: those of `createRedisClient`, plus the cluster's credentials. */
export interface RedisClusterClientOptions extends RedisClientOptions {
  /** ACL user name for every node (managed clusters). @default the seeds' URL, else none */
  readonly username?: string
  /** Password for every node. @default the seeds' URL, else none */
  readonly password?: string
  /** TLS to every node: `true`, or Node's TLS options. @default true when a seed is `rediss://` */
  readonly tls?: boolean | ConnectionOptions
}

/** A `RedisLike` over a Redis Cluster that owns its ioredis `Cluster`. */
export interface RedisClusterClient extends RedisLike {
  /** The underlying ioredis `Cluster` (for commands gatehouse does not wrap). */
  readonly connection: Cluster
  /**
   * PUBLISH `message` on `channel` through one master; the cluster forwards it to every node, so
   * a subscriber on any node receives it. Answers the subscribers of that one node only.
   */
  publish(channel: string, message: string): Promise<number>
  /**
   * A new plain connection to one node of the cluster (another node on each call), for a
   * subscriber: PUBLISH reaches every node. It gives up after a few failed reconnects
   * (`'end'`), so its owner opens the next one on another node instead of waiting for a
   * node that a failover has removed.
   */
  subscriberConnection(options?: NodeOptions): Redis
  /** Closes every connection; pending commands fail. */
  close(): Promise<void>
}

/** A failed command or a timeout: the stores answer 503 for it. */
class RedisClusterTimeout extends Error {
  constructor(ms: number) {
    super(`Redis Cluster command timed out after ${ms} ms`)
    this.name = 'RedisClusterTimeout'
  }
}

/** `host:port` or `[v6]:port`; `null` when it is neither. */
function hostPort(entry: string): RedisClusterNode | null {
  const colon = entry.lastIndexOf(':')
  if (colon <= 0) return null
  let host = entry.slice(0, colon)
  const portText = entry.slice(colon + 1)
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1)
  const port = Number(portText)
  if (!/^[0-9]{1,5}$/.test(portText) || port < 1 || port > 65_535) return null
  // A DNS name, IPv4, or IPv6 (from inside brackets).
  if (!/^[A-Za-z0-9._-]+$/.test(host) && !/^[0-9A-Fa-f:.]+$/.test(host)) return null
  return { host, port }
}

/**
 * Reads a Redis Cluster's seed nodes from a comma-separated list, as `REDIS_CLUSTER_NODES`
 * holds it: `host:port` entries, or `redis://[user:password@]host:port` / `rediss://` URLs
 * (for a managed cluster that wants TLS and a password). A malformed entry throws.
 *
 * @example
 * parseRedisClusterNodes('127.0.0.1:7000,127.0.0.1:7001').nodes // [{ host: '127.0.0.1', port: 7000 }, …]
 */
export function parseRedisClusterNodes(list: string): RedisClusterSeeds {
  const nodes: RedisClusterNode[] = []
  let username: string | undefined
  let password: string | undefined
  let tls = false
  for (const raw of list.split(',')) {
    const entry = raw.trim()
    if (entry === '') continue
    if (/^rediss?:\/\//i.test(entry)) {
      let url: URL
      try {
        url = new URL(entry)
      } catch {
        throw new Error(`Redis Cluster node "${redactConfigValue(entry)}" is not a valid URL`)
      }
      const node = hostPort(`${url.hostname}:${url.port === '' ? '6379' : url.port}`)
      if (node === null) throw new Error(`Redis Cluster node "${redactConfigValue(entry)}" has no valid host and port`)
      nodes.push(node)
      if (url.protocol.toLowerCase() === 'rediss:') tls = true
      if (username === undefined && url.username !== '') username = decodeURIComponent(url.username)
      if (password === undefined && url.password !== '') password = decodeURIComponent(url.password)
      continue
    }
    const node = hostPort(entry)
    if (node === null) throw new Error(`Redis Cluster node "${redactConfigValue(entry)}" must be host:port or a redis:// URL`)
    nodes.push(node)
  }
  if (nodes.length === 0) throw new Error('a Redis Cluster needs at least one seed node (host:port)')
  return { nodes, tls, ...(username === undefined ? {} : { username }), ...(password === undefined ? {} : { password }) }
}

/**
 * Connects to a Redis Cluster through `seeds` (a `REDIS_CLUSTER_NODES`-style list, or nodes):
 * the stores' keys are each single-slot, so sessions, throttles and failed-login counters
 * spread over the masters. The settings mirror `createRedisClient`: every call either answers
 * or fails within `commandTimeoutMs` (the request answers 503), including while a failover
 * leaves a slot without a master; ioredis follows `MOVED` and refreshes the slot map by
 * itself, so requests recover once a replica is promoted.
 *
 * A command that a failing node may or may not have run is retried on the new master, so a
 * throttle hit can count twice across a failover (the single-server client never resends).
 *
 * @example
 * const redis = createRedisClusterClient(process.env.REDIS_CLUSTER_NODES ?? '127.0.0.1:7000')
 * const sessions = new RedisSessionStore({ redis })
 * // on shutdown: await redis.close()
 */
export function createRedisClusterClient(
  seeds: string | readonly RedisClusterNode[],
  options: RedisClusterClientOptions = {},
): RedisClusterClient {
  const parsed: RedisClusterSeeds = typeof seeds === 'string' ? parseRedisClusterNodes(seeds) : { nodes: seeds, tls: false }
  if (parsed.nodes.length === 0) throw new Error('a Redis Cluster needs at least one seed node (host:port)')
  const commandTimeoutMs = options.commandTimeoutMs ?? 2_000
  const connectTimeoutMs = options.connectTimeoutMs ?? 2_000
  const maxDelay = options.maxReconnectDelayMs ?? 2_000
  const onError = options.onError ?? ((error: Error) => console.warn(`gatehouse: Redis Cluster unavailable: ${error.message}`))
  const username = options.username ?? parsed.username
  const password = options.password ?? parsed.password
  const tlsOption = options.tls ?? parsed.tls
  const tls: ConnectionOptions | undefined = tlsOption === false ? undefined : tlsOption === true ? {} : tlsOption
  const nodeOptions: NodeOptions = {
    commandTimeout: commandTimeoutMs,
    connectTimeout: connectTimeoutMs,
    maxRetriesPerRequest: 1,
    autoResendUnfulfilledCommands: false,
    ...(username === undefined ? {} : { username }),
    ...(password === undefined ? {} : { password }),
    ...(tls === undefined ? {} : { tls }),
  }
  const connection = new Cluster(
    parsed.nodes.map((n) => ({ host: n.host, port: n.port })),
    {
      // As the single-server client: a command while the cluster is unreachable fails at once.
      enableOfflineQueue: false,
      scaleReads: 'master',
      slotsRefreshTimeout: Math.max(connectTimeoutMs, 1_000),
      clusterRetryStrategy: (attempt: number) => Math.min(50 * 2 ** Math.min(attempt - 1, 16), maxDelay),
      // With TLS the nodes announce IP addresses that the certificates do not name: keep host names.
      ...(tls === undefined ? {} : { dnsLookup: (address: string, callback: (err: null, address: string) => void) => callback(null, address) }),
      redisOptions: nodeOptions,
    },
  )

  // Told at most once per 10 s: a failover makes every request to the lost slots fail.
  let lastReport = Number.NEGATIVE_INFINITY
  const report = (error: Error): void => {
    const now = Date.now()
    if (now - lastReport < 10_000) return
    lastReport = now
    onError(error)
  }
  connection.on('error', report)
  connection.on('node error', (error: Error) => report(error))

  let phase: 'initial' | 'settled' = 'initial'
  const firstOutcome = new Promise<void>((resolve) => {
    const settle = (): void => {
      phase = 'settled'
      connection.off('ready', settle)
      connection.off('close', settle)
      connection.off('end', settle)
      resolve()
    }
    connection.once('ready', settle)
    connection.once('close', settle)
    connection.once('end', settle)
  })

  const timeoutAfter = (ms: number): { promise: Promise<never>; cancel: () => void } => {
    let timer: NodeJS.Timeout | undefined
    const promise = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new RedisClusterTimeout(ms)), ms)
    })
    promise.catch(() => undefined)
    return { promise, cancel: () => clearTimeout(timer) }
  }

  /**
   * Runs `command`, failing at `commandTimeoutMs` at the latest. Before the first connection
   * settles, commands first wait for it (up to the command timeout too), as with `createRedisClient`.
   */
  const bounded = async <T>(command: () => Promise<T>): Promise<T> => {
    if (phase === 'initial') {
      const wait = timeoutAfter(commandTimeoutMs)
      await Promise.race([firstOutcome, wait.promise.catch(() => undefined)])
      wait.cancel()
    }
    const deadline = timeoutAfter(commandTimeoutMs)
    const running = command()
    // A command that loses the race still settles later: nobody waits for it then.
    running.catch(() => undefined)
    try {
      return await Promise.race([running, deadline.promise])
    } finally {
      deadline.cancel()
    }
  }

  const adapted = fromIoredis(connection)
  let nextNode = 0
  return {
    connection,
    evalScript: (script, keys, args) => bounded(() => adapted.evalScript(script, keys, args)),
    get: (key) => bounded(() => adapted.get(key)),
    set: (key, value, ttlMs) => bounded(() => adapted.set(key, value, ttlMs)),
    del: (key) => bounded(() => adapted.del(key)),
    publish: (channel, message) => bounded(() => connection.publish(channel, message)),
    subscriberConnection(extra: NodeOptions = {}) {
      // The nodes the cluster knows now (a promoted replica included), else the seeds.
      const known: RedisClusterNode[] = connection.nodes('all').map((n) => ({ host: n.options.host ?? '127.0.0.1', port: n.options.port ?? 6379 }))
      const candidates = known.length > 0 ? known : parsed.nodes
      const node = candidates[nextNode++ % candidates.length] ?? parsed.nodes[0] ?? { host: '127.0.0.1', port: 6379 }
      const { commandTimeout: _unused, ...withoutTimeout } = nodeOptions
      return new Redis({
        ...withoutTimeout,
        host: node.host,
        port: node.port,
        // A few quick reconnects, then 'end': the owner moves to another node.
        retryStrategy: (attempt: number) => (attempt > 3 ? null : Math.min(100 * attempt, maxDelay)),
        ...extra,
      })
    },
    async close() {
      if (connection.status === 'ready') {
        try {
          await bounded(() => connection.quit())
          return
        } catch {
          // Fall through: drop the sockets.
        }
      }
      connection.disconnect()
    },
  }
}
