import { redactConfigValue } from '../core/redact.js'
import { invalidationChannel } from '../redis/invalidation-channel.js'
import type { InvalidationBus } from '../stores/invalidation-bus.js'
import { nonEmpty, type CliIo } from './cli-io.js'
import type { InvalidationOptions } from './store-options.js'

/**
 * A bus for when no Redis is named: it tells no server, and after the command warns once
 * if anything was published (a credential actually changed), since running servers' token
 * caches then keep the old answer until their TTL ends.
 */
class UntoldServers implements InvalidationBus {
  changed = false
  async publish(): Promise<void> {
    this.changed = true
  }
  subscribe(): () => void {
    return () => undefined
  }
}

/**
 * Runs `fn` with a bus that tells running servers (through Redis pub/sub) about a change,
 * when `--redis` or `REDIS_URL` names a Redis (or `REDIS_CLUSTER_NODES` a Redis Cluster), on the channel the servers derive from the
 * same prefix (`--channel`, else `invalidationChannel(GATEHOUSE_REDIS_PREFIX)`). The Redis
 * driver is loaded only then (ioredis is an optional dependency). A change the servers
 * could not be told of (no Redis named, or Redis unreachable) is still made, with a
 * warning that their caches catch up within their TTL.
 */
export async function withInvalidation<T>(options: InvalidationOptions, io: CliIo, fn: (bus: InvalidationBus | undefined) => Promise<T>): Promise<T> {
  const url = options.redis ?? io.env['REDIS_URL']
  // A Redis Cluster forwards a PUBLISH to every node, so any node's subscribers hear it.
  const clusterNodes = url === undefined || url === '' ? nonEmpty(io.env['REDIS_CLUSTER_NODES']) : undefined
  if ((url === undefined || url === '') && clusterNodes === undefined) {
    const untold = new UntoldServers()
    const result = await fn(untold)
    if (untold.changed) {
      io.stderr.write(
        "gatehouse: warning: running servers were not told (no --redis, REDIS_URL or REDIS_CLUSTER_NODES); a server with a token cache keeps the old answer until the cache's TTL ends\n",
      )
    }
    return result
  }
  const { createRedisClient } = await import('../redis/redis-client.js')
  const { createRedisClusterClient } = await import('../redis/redis-cluster-client.js')
  const { RedisInvalidationBus } = await import('../redis/redis-invalidation-bus.js')
  // Connection trouble matters only if a message then fails to go out; its text says more than the publish error.
  let connectionError: Error | null = null
  let warned = false
  const warn = (error: Error): void => {
    if (warned) return
    warned = true
    // ioredis may quote the URL it was given.
    const reason = redactConfigValue(connectionError?.message ?? error.message)
    io.stderr.write(`gatehouse: warning: running servers were not told through Redis (${reason}); their cached token authentications end within their cache's TTL\n`)
  }
  const onError = (error: Error): void => {
    connectionError ??= error
  }
  const redis = clusterNodes === undefined ? createRedisClient(url ?? '', { onError }) : createRedisClusterClient(clusterNodes, { onError })
  const channel = options.channel ?? invalidationChannel(nonEmpty(io.env['GATEHOUSE_REDIS_PREFIX']))
  const bus = new RedisInvalidationBus({ redis, channel, onError: warn })
  try {
    return await fn(bus)
  } finally {
    await bus.close()
    await redis.close()
  }
}
