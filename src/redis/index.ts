export {
  createRedisClient,
  fromIoredis,
  redisUnavailable,
  type IoredisLike,
  type RedisClient,
  type RedisClientOptions,
  type RedisLike,
} from './redis-client.js'
export {
  createRedisClusterClient,
  parseRedisClusterNodes,
  type RedisClusterClient,
  type RedisClusterClientOptions,
  type RedisClusterNode,
  type RedisClusterSeeds,
} from './redis-cluster-client.js'
export { RedisThrottleStore, THROTTLE_SCRIPT, type RedisThrottleStoreOptions } from './redis-throttle-store.js'
export { RedisSessionStore, type RedisSessionStoreOptions } from './redis-session-store.js'
export { RedisInvalidationBus, type RedisInvalidationBusOptions } from './redis-invalidation-bus.js'
export { invalidationChannel, DEFAULT_REDIS_PREFIX } from './invalidation-channel.js'
