import type { ReservationHit, ReservingThrottleStore, ThrottleHit, ThrottleStore } from '../throttling/throttle-store.js'
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

/**
 * Login-failure reservations live in one sorted set per key, each member scored by when it
 * stops counting: `f:<id>` a confirmed failure (scored at + window), `r:<id>` a reservation
 * (scored by its lease's end). One key per history keeps the scripts single-key (Redis Cluster).
 * KEYS[1] = set; ARGV = now (ms), limit, lease end (ms), id.
 * Answers {allowed, failures, pending, oldest failure's score or false, next lease end or false}.
 */
export const RESERVE_SCRIPT = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local leaseEnd = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
local entries = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
local failures, pending = 0, 0
local oldest, nextLease = false, false
for i = 1, #entries, 2 do
  if string.sub(entries[i], 1, 2) == 'f:' then
    failures = failures + 1
    if not oldest then oldest = entries[i + 1] end
  else
    pending = pending + 1
    if not nextLease then nextLease = entries[i + 1] end
  end
end
local allowed = 0
if failures + pending < limit and leaseEnd > now then
  redis.call('ZADD', key, leaseEnd, 'r:' .. ARGV[4])
  pending = pending + 1
  if not nextLease or leaseEnd < tonumber(nextLease) then nextLease = ARGV[3] end
  allowed = 1
end
local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
if #last == 0 then
  redis.call('DEL', key)
else
  local ttl = math.ceil(tonumber(last[2]) - now)
  if ttl < 1 then ttl = 1 end
  redis.call('PEXPIRE', key, ttl)
end
return {allowed, failures, pending, oldest, nextLease}
`

/** Turns reservation ARGV[1] into a failure at ARGV[2] (ms) that counts for ARGV[3] ms. */
export const CONFIRM_SCRIPT = `
local key = KEYS[1]
local at = tonumber(ARGV[2])
redis.call('ZREM', key, 'r:' .. ARGV[1])
redis.call('ZADD', key, at + tonumber(ARGV[3]), 'f:' .. ARGV[1])
local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
local ttl = math.ceil(tonumber(last[2]) - at)
if ttl < 1 then ttl = 1 end
redis.call('PEXPIRE', key, ttl)
return 1
`

/** Drops reservation ARGV[1]; the key goes when empty. */
export const CANCEL_SCRIPT = `
redis.call('ZREM', KEYS[1], 'r:' .. ARGV[1])
if redis.call('ZCARD', KEYS[1]) == 0 then redis.call('DEL', KEYS[1]) end
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
export class RedisThrottleStore implements ThrottleStore, ReservingThrottleStore {
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
      throw redisUnavailable(error, 'throttle hit')
    }
    if (!Array.isArray(reply) || reply.length !== 3) throw new Error(`unexpected throttle script reply: ${JSON.stringify(reply)}`)
    const [allowed, count, oldest] = reply as [unknown, unknown, unknown]
    return {
      allowed: Number(allowed) === 1,
      count: Number(count),
      oldest: oldest === null || oldest === undefined ? null : Number(oldest),
    }
  }

  async reserve(key: string, id: string, now: number, windowMs: number, limit: number, leaseEnd: number): Promise<ReservationHit> {
    let reply: unknown
    try {
      reply = await this.redis.evalScript(RESERVE_SCRIPT, [this.prefix + key], [String(now), String(limit), String(leaseEnd), id])
    } catch (error) {
      throw redisUnavailable(error, 'throttle reserve')
    }
    if (!Array.isArray(reply) || reply.length !== 5) throw new Error(`unexpected reserve script reply: ${JSON.stringify(reply)}`)
    const [allowed, failures, pending, oldestEnd, nextLeaseEnd] = reply as unknown[]
    return {
      allowed: Number(allowed) === 1,
      failures: Number(failures),
      pending: Number(pending),
      // Failures are scored by when they leave the window: the oldest happened a window earlier.
      oldest: isNil(oldestEnd) ? null : Number(oldestEnd) - windowMs,
      nextLeaseEnd: isNil(nextLeaseEnd) ? null : Number(nextLeaseEnd),
    }
  }

  async confirm(key: string, id: string, at: number, windowMs: number): Promise<void> {
    try {
      await this.redis.evalScript(CONFIRM_SCRIPT, [this.prefix + key], [id, String(at), String(windowMs)])
    } catch (error) {
      throw redisUnavailable(error, 'throttle confirm')
    }
  }

  async cancel(key: string, id: string): Promise<void> {
    try {
      await this.redis.evalScript(CANCEL_SCRIPT, [this.prefix + key], [id])
    } catch (error) {
      throw redisUnavailable(error, 'throttle cancel')
    }
  }
}

/** A Lua `false` (nil) arrives as `null`. */
function isNil(value: unknown): boolean {
  return value === null || value === undefined || value === false
}
