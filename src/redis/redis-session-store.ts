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

/** What one session looks like in Redis. */
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
 * Sessions in Redis as JSON, each expiring with the session itself (`PX`), so
 * any process behind a load balancer sees a session another one created and
 * nothing needs clearing. Redis failures throw `ServiceUnavailable` (503).
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

  async get(sessionKey: string): Promise<SessionRecord | null> {
    if (sessionKey.length === 0 || sessionKey.length > 64) return null
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
    const value: StoredSession = { u: record.userId, d: record.data, e: record.expiresAt.getTime() }
    try {
      await this.redis.set(this.prefix + sessionKey, JSON.stringify(value), ttlMs)
    } catch (error) {
      throw redisUnavailable(error, 'session save')
    }
  }

  async delete(sessionKey: string): Promise<void> {
    try {
      await this.redis.del(this.prefix + sessionKey)
    } catch (error) {
      throw redisUnavailable(error, 'session delete')
    }
  }
}
