import { randomBytes } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { UserId } from '../core/user.js'
import type { InvalidationBus, InvalidationListener } from '../stores/invalidation-bus.js'
import { LocalInvalidationBus } from '../stores/local-invalidation-bus.js'
import type { RedisClient } from './redis-client.js'
import type { RedisClusterClient } from './redis-cluster-client.js'
import { invalidationChannel } from './invalidation-channel.js'

/** Options for `RedisInvalidationBus`. */
export interface RedisInvalidationBusOptions {
  /**
   * A client from `createRedisClient` or `createRedisClusterClient`: the bus publishes on it,
   * and listens on a connection of its own (a subscribed Redis connection can run no other
   * command), opened by the first `subscribe`: a `duplicate()` of `redis.connection`, or on a
   * cluster a connection to one node (PUBLISH reaches every node), moved to another node
   * when that one is lost.
   */
  readonly redis: Pick<RedisClient, 'connection' | 'publish'> | Pick<RedisClusterClient, 'subscriberConnection' | 'publish'>
  /**
   * The Redis key prefix of your deployment: the channel is `<prefix>auth-invalidation`
   * (`invalidationChannel(prefix)`), as the `drf-gatehouse` command line derives it from
   * `GATEHOUSE_REDIS_PREFIX`. Ignored when `channel` is given. @default 'gatehouse:'
   */
  readonly prefix?: string
  /**
   * The pub/sub channel, when not derived from `prefix`; every instance (and the
   * `drf-gatehouse` command line's `--channel`) must use the same. Channels are per Redis
   * server, not per database number.
   * @default invalidationChannel(prefix): 'gatehouse:auth-invalidation'
   */
  readonly channel?: string
  /** Told when a message cannot be published or the subscription is lost (once per outage). @default console.warn */
  readonly onError?: (error: Error) => void
}

/** The message on the wire: the user's id (its JSON type kept) and the publishing bus. */
interface Message {
  readonly u: UserId
  readonly o: string
}

/**
 * An `InvalidationBus` across processes over Redis pub/sub: `publish` tells this process's
 * listeners at once, then every other instance subscribed to the channel. Delivery is
 * at most once, so the bus tells its listeners to forget everything (`{ type: 'all' }`)
 * whenever it (re)subscribes and when its connection drops: a message missed while
 * disconnected costs a cache refill, never a stale answer past the reconnection. Only a
 * message lost while both sides look connected (a network partition, a publish that
 * failed) leaves an entry stale, until the cache's TTL ends it.
 *
 * Any message on the channel that is not gatehouse's own (`redis-cli PUBLISH
 * gatehouse:auth-invalidation flush`) makes every instance forget everything.
 *
 * @example
 * const redis = createRedisClient(process.env.REDIS_URL!)
 * const bus = new RedisInvalidationBus({ redis })
 * // on shutdown: await bus.close(); await redis.close()
 */
export class RedisInvalidationBus implements InvalidationBus {
  readonly channel: string
  private readonly redis: RedisInvalidationBusOptions['redis']
  private readonly onError: (error: Error) => void
  private readonly local: LocalInvalidationBus
  /** Tells this bus's own messages apart when they come back from Redis. */
  private readonly origin = randomBytes(9).toString('base64url')
  private subscriber: Redis | null = null
  private subscribed = false
  private reported = false
  private closed = false

  constructor(options: RedisInvalidationBusOptions) {
    this.redis = options.redis
    this.channel = options.channel ?? invalidationChannel(options.prefix)
    this.onError = options.onError ?? ((error: Error) => console.warn(`gatehouse: auth invalidation over Redis: ${error.message}`))
    this.local = new LocalInvalidationBus({ onError: (error) => this.onError(error instanceof Error ? error : new Error(String(error))) })
  }

  /** True while the subscription is live (messages from other instances arrive). */
  get listening(): boolean {
    return this.subscribed
  }

  async publish(userId: UserId): Promise<void> {
    this.local.deliver({ type: 'user', userId })
    const message: Message = { u: userId, o: this.origin }
    try {
      await this.redis.publish(this.channel, JSON.stringify(message))
    } catch (error) {
      this.onError(error instanceof Error ? error : new Error(String(error)))
    }
  }

  subscribe(listener: InvalidationListener): () => void {
    const unsubscribe = this.local.subscribe(listener)
    this.listen()
    return unsubscribe
  }

  /** Closes the subscriber connection; listeners hear nothing more from other instances. */
  async close(): Promise<void> {
    this.closed = true
    this.subscribed = false
    this.subscriber?.disconnect()
  }

  /** Opens the subscriber connection once; it reconnects by itself and re-subscribes on every `ready`. */
  private listen(): void {
    if (this.subscriber !== null || this.closed) return
    const options = {
      lazyConnect: true,
      // Subscribed again by hand on every 'ready', so the bus knows when it is live again.
      autoResubscribe: false,
      enableOfflineQueue: true,
      maxRetriesPerRequest: null,
    }
    const subscriber = 'subscriberConnection' in this.redis ? this.redis.subscriberConnection(options) : this.redis.connection.duplicate(options)
    this.subscriber = subscriber
    subscriber.once('end', () => {
      // A cluster node's connection gives up when the node is gone: listen through another node.
      if (this.subscriber !== subscriber || this.closed) return
      this.subscriber = null
      setTimeout(() => this.listen(), 100).unref()
    })
    subscriber.on('ready', () => void this.subscribeOn(subscriber))
    subscriber.on('close', () => {
      if (!this.subscribed || this.closed) return
      this.subscribed = false
      // Messages may be missed from now until the next subscription: forget what they would have corrected.
      this.local.deliver({ type: 'all' })
    })
    subscriber.on('error', (error: Error) => this.report(error))
    subscriber.on('message', (channel: string, message: string) => {
      // A message already on the wire when close() ran still arrives: a closed bus drops it.
      if (channel === this.channel && !this.closed) this.receive(message)
    })
    subscriber.connect().catch((error: unknown) => this.report(error instanceof Error ? error : new Error(String(error))))
  }

  private async subscribeOn(subscriber: Redis): Promise<void> {
    try {
      await subscriber.subscribe(this.channel)
    } catch (error) {
      this.report(error instanceof Error ? error : new Error(String(error)))
      // Try again through a fresh connection (and its 'ready').
      if (!this.closed) subscriber.disconnect(true)
      return
    }
    if (this.closed) return
    this.subscribed = true
    this.reported = false
    // Whatever was published while nobody listened is unknown: start clean.
    this.local.deliver({ type: 'all' })
  }

  private receive(raw: string): void {
    let message: Partial<Message> | null = null
    try {
      const parsed: unknown = JSON.parse(raw)
      if (typeof parsed === 'object' && parsed !== null) message = parsed as Partial<Message>
    } catch {
      // Not ours: handled below as "forget everything".
    }
    if (message !== null && message.o === this.origin) return
    const userId = message?.u
    if (typeof userId === 'number' || typeof userId === 'string') this.local.deliver({ type: 'user', userId })
    else this.local.deliver({ type: 'all' })
  }

  private report(error: Error): void {
    if (this.reported || this.closed) return
    this.reported = true
    this.onError(error)
  }
}
