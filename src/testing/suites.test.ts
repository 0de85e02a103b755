/**
 * The contract suites themselves: a correct in-memory store passes every case, and each
 * kind of broken store fails the case meant to catch it, so a suite that checked nothing
 * would fail here.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { StoredUser, UserId } from '../core/user.js'
import type { JwtBlacklistStore, OutstandingJwt } from '../stores/jwt-blacklist-store.js'
import type { SessionRecord, SessionStore } from '../stores/session-store.js'
import type { TokenRecord, TokenStore, TokenWithUser } from '../stores/token-store.js'
import type { NewUser, UserStore } from '../stores/user-store.js'
import { MemoryThrottleStore } from '../throttling/memory-throttle-store.js'
import type { ReservationHit, ReservingThrottleStore, ThrottleHit, ThrottleStore } from '../throttling/throttle-store.js'
import { runJwtBlacklistStoreSuite, runReservingThrottleStoreSuite, runSessionStoreSuite, runThrottleStoreSuite, runTokenStoreSuite, runUserStoreSuite, type TestApi } from './index.js'

/** Runs a suite outside any test runner and answers which cases failed. */
async function failures(run: (api: TestApi) => void): Promise<string[]> {
  const cases: { name: string; body: () => Promise<void> }[] = []
  run({ describe: (_name, body) => body(), it: (name, body) => void cases.push({ name, body }) })
  expect(cases.length).toBeGreaterThan(3)
  const failed: string[] = []
  for (const c of cases) {
    try {
      await c.body()
    } catch {
      failed.push(c.name)
    }
  }
  return failed
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest()

class MemoryUserStore implements UserStore {
  readonly rows: { id: number; username: string; hash: Buffer | null; isActive: boolean; isStaff: boolean }[] = []
  private user(row: MemoryUserStore['rows'][number]): StoredUser {
    return { id: row.id, username: row.username, isActive: row.isActive, isStaff: row.isStaff, isAuthenticated: true }
  }
  async findById(id: UserId): Promise<StoredUser | null> {
    const row = this.rows.find((r) => r.id === id)
    return row === undefined ? null : this.user(row)
  }
  async findByUsername(username: string): Promise<StoredUser | null> {
    const row = this.rows.find((r) => r.username === username)
    return row === undefined ? null : this.user(row)
  }
  async authenticate(username: string, password: string): Promise<StoredUser | null> {
    const row = this.rows.find((r) => r.username === username)
    if (row === undefined || !row.isActive || row.hash === null || !timingSafeEqual(row.hash, digest(password))) return null
    return this.user(row)
  }
  async checkPassword(user: StoredUser, password: string): Promise<boolean> {
    const row = this.rows.find((r) => r.id === user.id)
    return row !== undefined && row.hash !== null && timingSafeEqual(row.hash, digest(password))
  }
  async setPassword(userId: UserId, password: string | null): Promise<boolean> {
    const row = this.rows.find((r) => r.id === userId)
    if (row === undefined) return false
    row.hash = password === null ? null : digest(password)
    return true
  }
  async setActive(userId: UserId, isActive: boolean): Promise<boolean> {
    const row = this.rows.find((r) => r.id === userId)
    if (row === undefined) return false
    row.isActive = isActive
    return true
  }
  async create(user: NewUser): Promise<StoredUser> {
    const username = user.username.normalize('NFKC')
    if (this.rows.some((r) => r.username === username)) throw new Error('duplicate username')
    const row = {
      id: this.rows.length + 1,
      username,
      hash: user.password === null ? null : digest(user.password),
      isActive: user.isActive ?? true,
      isStaff: user.isStaff ?? false,
    }
    this.rows.push(row)
    return this.user(row)
  }
}

class MemoryTokenStore implements TokenStore {
  constructor(readonly byUser: Map<UserId, TokenRecord> = new Map()) {}
  async findByKey(key: string): Promise<TokenRecord | null> {
    return [...this.byUser.values()].find((t) => t.key === key) ?? null
  }
  async getOrCreate(userId: UserId): Promise<TokenRecord> {
    const existing = this.byUser.get(userId)
    if (existing !== undefined) return existing
    return this.regenerate(userId)
  }
  async regenerate(userId: UserId): Promise<TokenRecord> {
    const record = { key: randomBytes(20).toString('hex'), userId, created: new Date() }
    this.byUser.set(userId, record)
    return record
  }
}

/** The optional methods too: `delete`, and `findWithUser` over a user directory. */
class FullMemoryTokenStore extends MemoryTokenStore {
  async delete(userId: UserId): Promise<boolean> {
    return this.byUser.delete(userId)
  }
  async findWithUser(key: string): Promise<TokenWithUser | null> {
    const token = await this.findByKey(key)
    return token === null ? null : { token, user: { id: token.userId, username: `user-${token.userId}`, isActive: true, isStaff: false, isAuthenticated: true } }
  }
}

class MemorySessionStore implements SessionStore {
  readonly rows = new Map<string, string>()
  constructor(private readonly now: () => number) {}
  async get(sessionKey: string): Promise<SessionRecord | null> {
    const raw = this.rows.get(sessionKey)
    if (raw === undefined) return null
    const parsed = JSON.parse(raw) as { userId: UserId | null; data: Record<string, unknown>; expiresAt: number }
    return parsed.expiresAt <= this.now() ? null : { userId: parsed.userId, data: parsed.data, expiresAt: new Date(parsed.expiresAt) }
  }
  async save(sessionKey: string, record: SessionRecord): Promise<void> {
    this.rows.set(sessionKey, JSON.stringify({ ...record, expiresAt: record.expiresAt.getTime() }))
  }
  async delete(sessionKey: string): Promise<void> {
    this.rows.delete(sessionKey)
  }
}

let nextUser = 0
const createUser = async (): Promise<UserId> => ++nextUser

describe('runUserStoreSuite', () => {
  it('passes a correct store', async () => {
    const store = new MemoryUserStore()
    expect(await failures((api) => runUserStoreSuite({ ...api, create: () => store }))).toEqual([])
  })

  it('fails a store whose setPassword keeps the old password working, or whose setActive is not seen by authenticate', async () => {
    class KeepsOldPassword extends MemoryUserStore {
      private readonly old = new Map<UserId, Buffer | null>()
      override async setPassword(userId: UserId, password: string | null): Promise<boolean> {
        this.old.set(userId, this.rows.find((r) => r.id === userId)?.hash ?? null)
        return super.setPassword(userId, password)
      }
      override async authenticate(username: string, password: string): Promise<StoredUser | null> {
        const row = this.rows.find((r) => r.username === username)
        const old = row === undefined ? null : this.old.get(row.id)
        if (row !== undefined && row.isActive && old != null && timingSafeEqual(old, digest(password))) return this.findById(row.id)
        return super.authenticate(username, password)
      }
    }
    class CachedActive extends MemoryUserStore {
      override async setActive(userId: UserId, isActive: boolean): Promise<boolean> {
        // Writes a flag that findById reads but authenticate ignores.
        const row = this.rows.find((r) => r.id === userId)
        if (row === undefined) return false
        const stale = { ...row }
        row.isActive = isActive
        if (!isActive) this.ignored.set(row.username, stale)
        else this.ignored.delete(row.username)
        return true
      }
      private readonly ignored = new Map<string, MemoryUserStore['rows'][number]>()
      override async authenticate(username: string, password: string): Promise<StoredUser | null> {
        const stale = this.ignored.get(username)
        if (stale !== undefined && stale.hash !== null && timingSafeEqual(stale.hash, digest(password))) return this.findByUsername(username)
        return super.authenticate(username, password)
      }
    }
    expect(await failures((api) => runUserStoreSuite({ ...api, create: () => new KeepsOldPassword() }))).toEqual([
      'setPassword (when present) replaces the password; null makes it unusable; false for an unknown user',
    ])
    expect(await failures((api) => runUserStoreSuite({ ...api, create: () => new CachedActive() }))).toEqual([
      'setActive (when present) deactivates and reactivates; false for an unknown user',
    ])
  })

  it('fails a store that lets inactive users authenticate, or compares names case-insensitively', async () => {
    class LetsInactiveIn extends MemoryUserStore {
      override async authenticate(username: string, password: string): Promise<StoredUser | null> {
        const row = this.rows.find((r) => r.username === username)
        return row !== undefined && row.hash !== null && row.hash.equals(digest(password)) ? this.findById(row.id) : null
      }
    }
    class CaseBlind extends MemoryUserStore {
      override async findByUsername(username: string): Promise<StoredUser | null> {
        const row = this.rows.find((r) => r.username.toLowerCase() === username.toLowerCase())
        return row === undefined ? null : this.findById(row.id)
      }
    }
    expect(await failures((api) => runUserStoreSuite({ ...api, create: () => new LetsInactiveIn() }))).toEqual([
      'authenticate is null for an unknown user, an inactive one, and an unusable password',
      'setActive (when present) deactivates and reactivates; false for an unknown user',
    ])
    expect(await failures((api) => runUserStoreSuite({ ...api, create: () => new CaseBlind() }))).toEqual([
      'refuses a duplicate username, and names are case-sensitive',
    ])
  })
})

describe('runUserStoreSuite and NFKC (issue 45 item 17)', () => {
  it('fails a store whose create keeps the name as given', async () => {
    class KeepsName extends MemoryUserStore {
      override async create(user: NewUser): Promise<StoredUser> {
        if (this.rows.some((r) => r.username === user.username)) throw new Error('duplicate username')
        const row = { id: this.rows.length + 1, username: user.username, hash: user.password === null ? null : digest(user.password), isActive: user.isActive ?? true, isStaff: user.isStaff ?? false }
        this.rows.push(row)
        return (await this.findById(row.id)) as StoredUser
      }
    }
    expect(await failures((api) => runUserStoreSuite({ ...api, create: () => new KeepsName() }))).toEqual([
      "create normalises the username with NFKC (Django's normalize_username): fullwidth ａｄｍｉｎ is admin",
    ])
  })
})

describe('runTokenStoreSuite', () => {
  it('passes a correct store', async () => {
    const shared = new Map<UserId, TokenRecord>()
    expect(await failures((api) => runTokenStoreSuite({ ...api, create: () => new MemoryTokenStore(shared), createUser }))).toEqual([])
  })

  it('fails a store whose regenerate keeps the old key working, or whose lookup ignores case', async () => {
    class KeepsOldKeys extends MemoryTokenStore {
      private readonly old: TokenRecord[] = []
      override async regenerate(userId: UserId): Promise<TokenRecord> {
        const previous = this.byUser.get(userId)
        if (previous !== undefined) this.old.push(previous)
        return super.regenerate(userId)
      }
      override async findByKey(key: string): Promise<TokenRecord | null> {
        return (await super.findByKey(key)) ?? this.old.find((t) => t.key === key) ?? null
      }
    }
    class CaseBlind extends MemoryTokenStore {
      override async findByKey(key: string): Promise<TokenRecord | null> {
        return super.findByKey(key.toLowerCase())
      }
    }
    const shared = new Map<UserId, TokenRecord>()
    expect(await failures((api) => runTokenStoreSuite({ ...api, create: () => new KeepsOldKeys(), createUser }))).toEqual(
      expect.arrayContaining(['regenerate replaces the key: the old one is no longer found']),
    )
    expect(await failures((api) => runTokenStoreSuite({ ...api, create: () => new CaseBlind(shared), createUser }))).toEqual([
      'findByKey finds the exact key and nothing else',
    ])
  })

  it('passes a store with the optional findWithUser and delete', async () => {
    const shared = new Map<UserId, TokenRecord>()
    expect(await failures((api) => runTokenStoreSuite({ ...api, create: () => new FullMemoryTokenStore(shared), createUser }))).toEqual([])
  })

  it('fails a store whose findWithUser answers another user or a near key, or whose delete leaves the key working', async () => {
    class WrongOwner extends FullMemoryTokenStore {
      override async findWithUser(key: string): Promise<TokenWithUser | null> {
        const found = await super.findWithUser(key)
        return found === null ? null : { ...found, user: { ...found.user, id: `${String(found.user.id)}x` } }
      }
    }
    class Prefix extends FullMemoryTokenStore {
      override async findWithUser(key: string): Promise<TokenWithUser | null> {
        const token = [...this.byUser.values()].find((t) => key.length > 0 && t.key.startsWith(key))
        return token === undefined ? null : super.findWithUser(token.key)
      }
    }
    class SoftDelete extends FullMemoryTokenStore {
      private readonly deleted: TokenRecord[] = []
      override async delete(userId: UserId): Promise<boolean> {
        const token = this.byUser.get(userId)
        if (token !== undefined) this.deleted.push(token)
        return super.delete(userId)
      }
      override async findByKey(key: string): Promise<TokenRecord | null> {
        return (await super.findByKey(key)) ?? this.deleted.find((t) => t.key === key) ?? null
      }
    }
    const findWithUserCase = 'findWithUser (when present) answers the exact key with its user, and null for any other key'
    const deleteCase = 'delete (when present) removes the token: its key stops working, getOrCreate makes a new one'
    const shared = new Map<UserId, TokenRecord>()
    expect(await failures((api) => runTokenStoreSuite({ ...api, create: () => new WrongOwner(shared), createUser }))).toEqual([findWithUserCase])
    expect(await failures((api) => runTokenStoreSuite({ ...api, create: () => new Prefix(shared), createUser }))).toEqual([findWithUserCase])
    expect(await failures((api) => runTokenStoreSuite({ ...api, create: () => new SoftDelete(shared), createUser }))).toEqual([deleteCase])
  })

  it('fails a store whose concurrent get-or-create makes several tokens (separate instances, no shared state)', async () => {
    const failed = await failures((api) => runTokenStoreSuite({ ...api, create: () => new MemoryTokenStore(), createUser }))
    expect(failed).toContain('concurrent getOrCreate for one user (separate store instances) yields one token')
  })
})

describe('runSessionStoreSuite', () => {
  it('passes a correct store', async () => {
    expect(await failures((api) => runSessionStoreSuite({ ...api, create: (now) => new MemorySessionStore(now), createUser }))).toEqual([])
  })

  it('fails a store that ignores expiry', async () => {
    class NeverExpires extends MemorySessionStore {
      constructor() {
        super(() => 0)
      }
    }
    expect(await failures((api) => runSessionStoreSuite({ ...api, create: () => new NeverExpires(), createUser }))).toEqual([
      "a session reads as absent from its expiry on (by the store's clock)",
    ])
  })
})

describe('runThrottleStoreSuite', () => {
  it('passes MemoryThrottleStore', async () => {
    expect(await failures((api) => runThrottleStoreSuite({ ...api, create: () => new MemoryThrottleStore() }))).toEqual([])
  })

  it('fails a store that counts refused hits, or keeps a hit exactly one window old', async () => {
    class CountsRefused implements ThrottleStore {
      private readonly hits = new Map<string, number[]>()
      async hit(key: string, now: number, windowMs: number, limit: number): Promise<ThrottleHit> {
        const kept = (this.hits.get(key) ?? []).filter((t) => t > now - windowMs)
        const allowed = kept.length < limit
        kept.push(now)
        this.hits.set(key, kept)
        return { allowed, count: kept.length, oldest: kept[0] ?? null }
      }
    }
    class OffByOne implements ThrottleStore {
      private readonly hits = new Map<string, number[]>()
      async hit(key: string, now: number, windowMs: number, limit: number): Promise<ThrottleHit> {
        const kept = (this.hits.get(key) ?? []).filter((t) => t >= now - windowMs)
        const allowed = kept.length < limit
        if (allowed) kept.push(now)
        this.hits.set(key, kept)
        return { allowed, count: kept.length, oldest: kept[0] ?? null }
      }
    }
    expect(await failures((api) => runThrottleStoreSuite({ ...api, create: () => new CountsRefused() }))).toContain('does not record refused hits')
    expect(await failures((api) => runThrottleStoreSuite({ ...api, create: () => new OffByOne() }))).toContain(
      'forgets hits at or before now - window (DRF drops t <= now - duration) and keeps later ones',
    )
  })
})

describe('runReservingThrottleStoreSuite', () => {
  it('passes MemoryThrottleStore', async () => {
    expect(await failures((api) => runReservingThrottleStoreSuite({ ...api, create: () => new MemoryThrottleStore() }))).toEqual([])
  })

  it('fails a store whose reservations are failures until released (a lost release leaves a phantom failure)', async () => {
    class ReservationIsFailure implements ReservingThrottleStore {
      private readonly entries = new Map<string, Map<string, number>>()
      private of(key: string): Map<string, number> {
        const entries = this.entries.get(key) ?? new Map<string, number>()
        this.entries.set(key, entries)
        return entries
      }
      async reserve(key: string, id: string, now: number, windowMs: number, limit: number): Promise<ReservationHit> {
        const entries = this.of(key)
        for (const [entry, at] of entries) if (at <= now - windowMs) entries.delete(entry)
        const allowed = entries.size < limit
        if (allowed) entries.set(id, now)
        const times = [...entries.values()]
        return { allowed, failures: entries.size, pending: 0, oldest: times.length === 0 ? null : Math.min(...times), nextLeaseEnd: null }
      }
      async confirm(): Promise<void> {}
      async cancel(key: string, id: string): Promise<void> {
        this.of(key).delete(id)
      }
    }
    expect(await failures((api) => runReservingThrottleStoreSuite({ ...api, create: () => new ReservationIsFailure() }))).toContain(
      'a reservation never settled lapses at its lease end and leaves no failure',
    )
  })
})

/** A blacklist in memory: each row a jti's expiry and whether it is blacklisted. */
class MemoryJwtBlacklist implements JwtBlacklistStore {
  readonly rows = new Map<string, { expiresAt: Date; blacklisted: boolean }>()
  async addOutstanding(token: OutstandingJwt): Promise<void> {
    if (!this.rows.has(token.jti)) this.rows.set(token.jti, { expiresAt: token.expiresAt, blacklisted: false })
  }
  async blacklist(token: OutstandingJwt): Promise<boolean> {
    const row = this.rows.get(token.jti)
    if (row?.blacklisted === true) return false
    this.rows.set(token.jti, { expiresAt: token.expiresAt, blacklisted: true })
    return true
  }
  async isBlacklisted(jti: string): Promise<boolean> {
    return this.rows.get(jti)?.blacklisted === true
  }
  async flushExpired(now: Date): Promise<number> {
    let n = 0
    for (const [jti, row] of this.rows) if (row.expiresAt < now && this.rows.delete(jti)) n++
    return n
  }
}

describe('runJwtBlacklistStoreSuite', () => {
  it('passes a correct store', async () => {
    expect(await failures((api) => runJwtBlacklistStoreSuite({ ...api, create: () => new MemoryJwtBlacklist() }))).toEqual([])
  })

  it('fails a store that checks, then (after a round trip) blacklists: concurrent calls all answer true', async () => {
    class CheckThenSet extends MemoryJwtBlacklist {
      override async blacklist(token: OutstandingJwt): Promise<boolean> {
        if (await this.isBlacklisted(token.jti)) return false
        await new Promise((resolve) => setImmediate(resolve))
        this.rows.set(token.jti, { expiresAt: token.expiresAt, blacklisted: true })
        return true
      }
    }
    expect(await failures((api) => runJwtBlacklistStoreSuite({ ...api, create: () => new CheckThenSet() }))).toEqual([
      'concurrent blacklist calls for one token: exactly one answers true (known and unknown tokens)',
    ])
  })
})
