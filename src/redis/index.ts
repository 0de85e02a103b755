export {
  createRedisClient,
  fromIoredis,
  type RedisClient,
  type RedisLike,
} from './redis-client.js'
export {
  createRedisClusterClient,
  parseRedisClusterNodes,
  type RedisClusterClient,
} from './redis-cluster-client.js'
export { RedisThrottleStore } from './redis-throttle-store.js'
export { RedisSessionStore } from './redis-session-store.js'
export { RedisInvalidationBus } from './redis-invalidation-bus.js'
export { invalidationChannel } from './invalidation-channel.js'
