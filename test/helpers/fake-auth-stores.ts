import type { StoredUser, UserId } from '../../src/core/user.js'
import type { SessionRecord, SessionStore } from '../../src/stores/session-store.js'
import type { TokenRecord, TokenStore } from '../../src/stores/token-store.js'
import type { NewUser, UserStore } from '../../src/stores/user-store.js'

/** A user of the fake store, with its plain password (unit tests only). */
export interface FakeUser {
  /** Integer ids, as gatehouse's own users table has. */
  readonly id: number
  readonly username: string
  readonly password: string | null
  readonly isActive: boolean
  readonly isStaff: boolean
}

function stored(u: FakeUser): StoredUser {
  return { id: u.id, username: u.username, isActive: u.isActive, isStaff: u.isStaff, isAuthenticated: true }
}

/** The reference API's seed users. */
export const SEED_USERS: readonly FakeUser[] = [
  { id: 1, username: 'alice', password: 'alice-pass-1', isActive: true, isStaff: false },
  { id: 2, username: 'bob', password: 'bob-pass-2', isActive: true, isStaff: false },
  { id: 3, username: 'carol', password: 'carol-pass-3', isActive: false, isStaff: false },
  { id: 4, username: 'admin', password: 'admin-pass-4', isActive: true, isStaff: true },
]

/** In-memory `UserStore` with Django ModelBackend semantics (inactive users never authenticate). */
export class FakeUserStore implements UserStore {
  readonly users: FakeUser[]
  /** Every `authenticate` call, to check what a scheme passed on. */
  readonly calls: { username: string; password: string }[] = []

  constructor(users: readonly FakeUser[] = SEED_USERS) {
    this.users = [...users]
  }

  async findById(id: UserId): Promise<StoredUser | null> {
    const u = this.users.find((x) => x.id === id)
    return u === undefined ? null : stored(u)
  }

  async findByUsername(username: string): Promise<StoredUser | null> {
    const u = this.users.find((x) => x.username === username)
    return u === undefined ? null : stored(u)
  }

  async authenticate(username: string, password: string): Promise<StoredUser | null> {
    this.calls.push({ username, password })
    const u = this.users.find((x) => x.username === username)
    if (u === undefined || u.password === null || u.password !== password || !u.isActive) return null
    return stored(u)
  }

  async checkPassword(user: StoredUser, password: string): Promise<boolean> {
    return this.users.find((x) => x.id === user.id)?.password === password
  }

  async create(user: NewUser): Promise<StoredUser> {
    // As every store's create must (UserStore.create): NFKC, Django's normalize_username.
    const username = user.username.normalize('NFKC')
    if (this.users.some((x) => x.username === username)) throw new Error(`duplicate username ${username}`)
    const u: FakeUser = {
      id: Math.max(0, ...this.users.map((x) => x.id)) + 1,
      username,
      password: user.password,
      isActive: user.isActive ?? true,
      isStaff: user.isStaff ?? false,
    }
    this.users.push(u)
    return stored(u)
  }
}

/** In-memory `TokenStore`. */
export class FakeTokenStore implements TokenStore {
  readonly tokens = new Map<string, TokenRecord>()

  constructor(entries: readonly (readonly [string, UserId])[] = []) {
    for (const [key, userId] of entries) this.tokens.set(key, { key, userId, created: new Date(0) })
  }

  async findByKey(key: string): Promise<TokenRecord | null> {
    return this.tokens.get(key) ?? null
  }

  async getOrCreate(userId: UserId): Promise<TokenRecord> {
    for (const t of this.tokens.values()) if (t.userId === userId) return t
    const t = { key: `k${userId}`.padEnd(40, '0'), userId, created: new Date() }
    this.tokens.set(t.key, t)
    return t
  }

  async regenerate(userId: UserId): Promise<TokenRecord> {
    for (const [k, t] of this.tokens) if (t.userId === userId) this.tokens.delete(k)
    return this.getOrCreate(userId)
  }
}

/** In-memory `SessionStore`. */
export class FakeSessionStore implements SessionStore {
  readonly sessions = new Map<string, SessionRecord>()

  async get(sessionKey: string): Promise<SessionRecord | null> {
    const s = this.sessions.get(sessionKey)
    return s === undefined || s.expiresAt.getTime() <= Date.now() ? null : s
  }

  async save(sessionKey: string, record: SessionRecord): Promise<void> {
    this.sessions.set(sessionKey, record)
  }

  async delete(sessionKey: string): Promise<void> {
    this.sessions.delete(sessionKey)
  }
}
