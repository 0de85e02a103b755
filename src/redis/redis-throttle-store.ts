import type { ReleasableThrottleStore, ThrottleHit } from '../throttling/throttle-store.js'
import { redisUnavailable, type RedisLike } from './redis-client.js'

/**
 * One atomic step of the sliding-window log, newest hit at the head of a list:
 * trim hits at or before now - window from the tail, count, push now when under
 * the limit, and let the key expire when its newest hit leaves the window.
 * KEYS[1] = history; ARGV = now (ms), window (ms), limit.
 */
export const THROTTLE_SCRIPT = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local cutoff = now - window
while true do
  local last = redis.call('LINDEX', key, -1)
  if not last or tonumber(last) > cutoff then break end
  redis.call('RPOP', key)
end
local count = redis.call('LLEN', key)
local allowed = 0
if count < limit then
  redis.call('LPUSH', key, ARGV[1])
  count = count + 1
  allowed = 1
end
if count == 0 then
  redis.call('DEL', key)
  return {allowed, 0, false}
end
local ttl = math.ceil(tonumber(redis.call('LINDEX', key, 0)) + window - now)
if ttl < 1 then ttl = 1 end
redis.call('PEXPIRE', key, ttl)
return {allowed, count, redis.call('LINDEX', key, -1)}
`

/** Gives one hit back: KEYS[1] = history; ARGV[1] = its time (ms). The key goes when empty. */
export const RELEASE_SCRIPT = `
redis.call('LREM', KEYS[1], 1, ARGV[1])
if redis.call('LLEN', KEYS[1]) == 0 then redis.call('DEL', KEYS[1]) end
return 1
`

/** Options for `RedisThrottleStore`. */
export interface RedisThrottleStoreOptions {
  readonly redis: RedisLike
  /** Prepended to every key, to share a Redis database with other apps. @default 'gatehouse:' */
  readonly prefix?: string
}

/**
 * Throttle histories in Redis, shared by every process that points at the
 * same server: one Lua script per hit, so N processes hitting one key share
 * one budget exactly (DRF's get-then-set cache history races).
 *
 * Timestamps come from each process's clock (injectable, as in DRF), so keep the
 * hosts' clocks synchronised (NTP). Redis failures throw `ServiceUnavailable`.
 *
 * @example
 * const store = new RedisThrottleStore({ redis: createRedisClient(process.env.REDIS_URL!) })
 * const throttle = new AnonRateThrottle({ store, rate: '100/hour' })
 */
export class RedisThrottleStore implements ReleasableThrottleStore {
  private readonly redis: RedisLike
  private readonly prefix: string

  constructor(options: RedisThrottleStoreOptions) {
    this.redis = options.redis
    this.prefix = options.prefix ?? 'gatehouse:'
  }

  async hit(key: string, now: number, windowMs: number, limit: number): Promise<ThrottleHit> {
    let reply: unknown
    try {
      reply = await this.redis.evalScript(THROTTLE_SCRIPT, [this.prefix + key], [String(now), String(windowMs), String(limit)])
    } catch (error) {
      throw redisUnavailable(error)
    }
    if (!Array.isArray(reply) || reply.length !== 3) throw new Error(`unexpected throttle script reply: ${JSON.stringify(reply)}`)
    const [allowed, count, oldest] = reply as [unknown, unknown, unknown]
    return {
      allowed: Number(allowed) === 1,
      count: Number(count),
      oldest: oldest === null || oldest === undefined ? null : Number(oldest),
    }
  }

  async release(key: string, at: number): Promise<void> {
    try {
      await this.redis.evalScript(RELEASE_SCRIPT, [this.prefix + key], [String(at)])
    } catch (error) {
      throw redisUnavailable(error)
    }
  }
}
