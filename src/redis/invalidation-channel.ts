/** The Redis key prefix gatehouse's Redis stores and the reference API use unless told otherwise. */
export const DEFAULT_REDIS_PREFIX = 'gatehouse:'

/**
 * The pub/sub channel of credential-change messages for a Redis key prefix:
 * `<prefix>auth-invalidation` (`gatehouse:auth-invalidation` by default). Servers
 * (`RedisInvalidationBus({ prefix })`) and the `drf-gatehouse` command line
 * (`GATEHOUSE_REDIS_PREFIX`) derive it the same way, so one prefix setting is enough.
 *
 * @example
 * invalidationChannel('shop:') // 'shop:auth-invalidation'
 */
export function invalidationChannel(prefix: string = DEFAULT_REDIS_PREFIX): string {
  return `${prefix}auth-invalidation`
}
