import type { UserId } from '../core/user.js'
import type { SessionRecord, SessionStore } from '../stores/session-store.js'
import { redisUnavailable, type RedisLike } from './redis-client.js'

/** Options for `RedisSessionStore`. */
export interface RedisSessionStoreOptions {
  readonly redis: RedisLike
  /** Prepended to every session key. @default 'gatehouse:session:' */
  readonly prefix?: string
  /** @default Date.now */
  readonly now?: () => number
}

interface StoredSession {
  readonly u: UserId | null
  readonly d: Readonly<Record<string, unknown>>
  readonly e: number
}

function decode(raw: string): SessionRecord | null {
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    return null
  }
  if (typeof parsed !== 'object' || parsed === null) return null
  const { u, d, e } = parsed as Partial<StoredSession>
  if (typeof e !== 'number' || !(u === null || typeof u === 'number' || typeof u === 'string')) return null
  const data = typeof d === 'object' && d !== null && !Array.isArray(d) ? d : {}
  return { userId: u, data, expiresAt: new Date(e) }
}

/**
 * Adds a session key to its user's index (a set, KEYS[1]) and keeps the index alive at least
 * as long as the session (ARGV[2] ms). One key per script, so it runs on Redis Cluster too.
 */
const INDEX_ADD = `redis.call('SADD', KEYS[1], ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1`

/** Takes a user's index (KEYS[1]) away and answers its members, atomically. */
const INDEX_TAKE = `local members = redis.call('SMEMBERS', KEYS[1])
redis.call('DEL', KEYS[1])
return members`

/**
 * Sessions in Redis as JSON, each expiring with the session itself (`PX`), so
 * any process behind a load balancer sees a session another one created and
 * nothing needs clearing. Each user's session keys are also kept in a set
 * (`<prefix>user:<id>`, expiring with their last session) for `deleteForUser`; a key
 * containing `:` is therefore never a session key ("not found"), and the library's own
 * keys never contain one. Redis failures throw `ServiceUnavailable` (503).
 *
 * @example
 * const sessions = new RedisSessionStore({ redis: createRedisClient(process.env.REDIS_URL!) })
 * new SessionAuthentication({ sessions, users })
 */
export class RedisSessionStore implements SessionStore {
  private readonly redis: RedisLike
  private readonly prefix: string
  private readonly now: () => number

  constructor(options: RedisSessionStoreOptions) {
    this.redis = options.redis
    this.prefix = options.prefix ?? 'gatehouse:session:'
    this.now = options.now ?? Date.now
  }

  private indexKey(userId: UserId): string {
    return `${this.prefix}user:${String(userId)}`
  }

  async get(sessionKey: string): Promise<SessionRecord | null> {
    // A `:` could name a user's index set (`user:<id>`): never a session key.
    if (sessionKey.length === 0 || sessionKey.length > 64 || sessionKey.includes(':')) return null
    let raw: string | null
    try {
      raw = await this.redis.get(this.prefix + sessionKey)
    } catch (error) {
      throw redisUnavailable(error, 'session load')
    }
    if (raw === null) return null
    const record = decode(raw)
    // Redis expires keys itself; this also covers an injected clock ahead of Redis.
    if (record === null || record.expiresAt.getTime() <= this.now()) return null
    return record
  }

  async save(sessionKey: string, record: SessionRecord): Promise<void> {
    const ttlMs = Math.ceil(record.expiresAt.getTime() - this.now())
    if (!(ttlMs > 0)) return this.delete(sessionKey)
    if (sessionKey.includes(':')) throw new RangeError('a Redis session key cannot contain ":"')
    const value: StoredSession = { u: record.userId, d: record.data, e: record.expiresAt.getTime() }
    try {
      await this.redis.set(this.prefix + sessionKey, JSON.stringify(value), ttlMs)
      if (record.userId !== null) await this.redis.evalScript(INDEX_ADD, [this.indexKey(record.userId)], [sessionKey, String(ttlMs)])
    } catch (error) {
      throw redisUnavailable(error)
    }
  }

  /**
   * Deletes every session saved for the user (logs them out everywhere).
   * @returns how many session keys the user's index held (sessions that already expired included).
   */
  async deleteForUser(userId: UserId): Promise<number> {
    try {
      const members = await this.redis.evalScript(INDEX_TAKE, [this.indexKey(userId)], [])
      const keys = Array.isArray(members) ? members.filter((m): m is string => typeof m === 'string') : []
      for (const key of keys) await this.redis.del(this.prefix + key)
      return keys.length
    } catch (error) {
      throw redisUnavailable(error, 'session save')
    }
  }

  async delete(sessionKey: string): Promise<void> {
    if (sessionKey.includes(':')) return
    try {
      await this.redis.del(this.prefix + sessionKey)
    } catch (error) {
      throw redisUnavailable(error, 'session delete')
    }
  }
}
