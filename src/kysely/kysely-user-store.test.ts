import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openAuthDatabase, type AuthTestDatabase } from '../../test/helpers/auth-database.js'
import { BACKENDS } from '../../test/helpers/databases.js'
import type { UserId } from '../core/user.js'
import { ConfigurationError } from '../core/errors.js'
import { LocalInvalidationBus } from '../stores/local-invalidation-bus.js'
import { runUserStoreSuite } from '../testing/index.js'
import { PasswordBudget } from '../crypto/password-budget.js'
import { KyselyUserStore } from './kysely-user-store.js'
import { backendUnavailable } from '../../test/helpers/requirements.js'

// Made by Debian's Django 3.2 (make_password('alice-pass-1', salt='abcdefgh12345678')).
const DJANGO_HASH = 'pbkdf2_sha256$260000$abcdefgh12345678$DSJDSO2UM7aRFCYT9+KgFziG067mfJaGxkUZOiYhRE0='

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`KyselyUserStore on ${backend.name}`, () => {
    let t: AuthTestDatabase
    let users: KyselyUserStore

    beforeAll(async () => {
      t = await openAuthDatabase(await backend.create())
      users = new KyselyUserStore({ db: t.db, scrypt: { N: 1024, r: 8, p: 1 } })
      await users.create({ username: 'ann', password: 'ann-pass' })
      await users.create({ username: 'ina', password: 'ina-pass', isActive: false })
      await users.create({ username: 'sam', password: 'sam-pass', isStaff: true })
      await users.create({ username: 'nopw', password: null })
    })
    afterAll(async () => t?.close())

    runUserStoreSuite({ describe, it, create: () => users })

    it('setPassword and setActive tell the invalidation bus, after the change and only when a user changed', async () => {
      const bus = new LocalInvalidationBus()
      const store = new KyselyUserStore({ db: t.db, scrypt: { N: 1024, r: 8, p: 1 }, invalidation: bus })
      const heard: UserId[] = []
      let seen: Promise<boolean | undefined> = Promise.resolve(undefined)
      bus.subscribe((event) => {
        if (event.type !== 'user') return
        heard.push(event.userId)
        // What a cache would reload at that moment: the write must already be visible.
        seen = store.findById(event.userId).then((u) => u?.isActive)
      })
      const u = await store.create({ username: 'bus-user', password: 'bus-pass-1' })
      expect(heard).toEqual([])
      expect(await store.setActive(u.id, false)).toBe(true)
      expect(await seen).toBe(false)
      expect(await store.setPassword(u.id, 'bus-pass-2')).toBe(true)
      expect(await store.setActive(u.id, true)).toBe(true)
      expect(await seen).toBe(true)
      expect(await store.setActive(987_654_321, false)).toBe(false)
      expect(await store.setPassword(987_654_321, 'x')).toBe(false)
      expect(heard).toEqual([u.id, u.id, u.id])
      // A rehash at login changes the stored hash but not the password: no event.
      const stronger = new KyselyUserStore({ db: t.db, scrypt: { N: 2048, r: 8, p: 1 }, invalidation: bus })
      expect((await stronger.authenticate('bus-user', 'bus-pass-2'))?.id).toBe(u.id)
      const row = await t.db.selectFrom('gatehouse_users').select('password').where('id', '=', Number(u.id)).executeTakeFirstOrThrow()
      expect(row.password).toMatch(/^scrypt\$2048\$/)
      expect(heard).toHaveLength(3)
    })

    it('setStaff writes the flag findById reads, and tells the bus; an unknown id is false', async () => {
      const bus = new LocalInvalidationBus()
      const heard: unknown[] = []
      bus.subscribe((event) => void heard.push(event.type === 'user' ? event.userId : 'all'))
      const store = new KyselyUserStore({ db: t.db, scrypt: { N: 1024, r: 8, p: 1 }, invalidation: bus })
      const u = await store.create({ username: 'staffer', password: 'staff-pass-1' })
      expect(await store.setStaff(u.id, true)).toBe(true)
      expect((await store.findById(u.id))?.isStaff).toBe(true)
      expect(await store.setStaff(u.id, false)).toBe(true)
      expect((await store.findById(u.id))?.isStaff).toBe(false)
      expect(await store.setStaff(987_654_321, true)).toBe(false)
      expect(heard).toEqual([u.id, u.id])
    })

    it('setActive writes the flag that findById and authenticate read', async () => {
      const u = await users.create({ username: 'flip', password: 'flip-pass' })
      await users.setActive(u.id, false)
      const row = await t.db.selectFrom('gatehouse_users').select('is_active').where('id', '=', Number(u.id)).executeTakeFirstOrThrow()
      expect(Number(row.is_active)).toBe(0)
      expect(await users.authenticate('flip', 'flip-pass')).toBeNull()
    })

    it('create returns the stored user with its flags', async () => {
      const u = await users.create({ username: 'new-one', password: 'x' })
      expect(u).toMatchObject({ username: 'new-one', isActive: true, isStaff: false, isAuthenticated: true })
      expect(Number.isInteger(u.id)).toBe(true)
      expect(await users.findById(u.id)).toEqual(u)
      expect(await users.findByUsername('sam')).toMatchObject({ isStaff: true, isActive: true })
      expect(await users.findByUsername('ina')).toMatchObject({ isActive: false })
    })

    it('stores a hash, never the password', async () => {
      const row = await t.db.selectFrom('gatehouse_users').select('password').where('username', '=', 'ann').executeTakeFirstOrThrow()
      expect(row.password).toMatch(/^scrypt\$1024\$8\$1\$/)
      expect(row.password).not.toContain('ann-pass')
    })

    it('a duplicate username throws (and is case-sensitive)', async () => {
      await expect(users.create({ username: 'ann', password: 'y' })).rejects.toThrow()
      expect((await users.create({ username: 'Ann', password: 'y' })).username).toBe('Ann')
    })

    it.each([
      ['right password', 'ann', 'ann-pass', 'ann'],
      ['wrong password', 'ann', 'ann-pas', null],
      ['empty password', 'ann', '', null],
      ['unknown user', 'ghost', 'ann-pass', null],
      ['inactive user with the right password (ModelBackend)', 'ina', 'ina-pass', null],
      ['unusable password', 'nopw', '', null],
      ['unusable password "!"', 'nopw', '!', null],
      ['NUL in the name (PostgreSQL refuses it: must be null, not an error)', 'ann\0', 'ann-pass', null],
      ['very long name', 'a'.repeat(5000), 'x', null],
      ['case matters', 'ANN', 'ann-pass', null],
    ])('authenticate: %s', async (_name, username, password, expected) => {
      const user = await users.authenticate(username, password)
      expect(user === null ? null : user.username).toBe(expected)
    })

    it('findByUsername / findById for unknown or odd input is null', async () => {
      expect(await users.findByUsername('ghost')).toBeNull()
      expect(await users.findByUsername('')).toBeNull()
      expect(await users.findByUsername('a\0b')).toBeNull()
      expect(await users.findByUsername('\ud800')).toBeNull()
      expect(await users.findById(987654)).toBeNull()
    })

    it('checkPassword', async () => {
      const ann = (await users.findByUsername('ann'))!
      expect(await users.checkPassword(ann, 'ann-pass')).toBe(true)
      expect(await users.checkPassword(ann, 'nope')).toBe(false)
      const ina = (await users.findByUsername('ina'))!
      expect(await users.checkPassword(ina, 'ina-pass')).toBe(true)
      expect(await users.checkPassword({ ...ann, id: 987654 }, 'ann-pass')).toBe(false)
    })

    it('users imported from Django keep their pbkdf2_sha256 passwords', async () => {
      await t.db
        .insertInto('gatehouse_users')
        .values({ username: 'django-alice', password: DJANGO_HASH, is_active: 1, is_staff: 0, date_joined: new Date().toISOString() })
        .execute()
      expect((await users.authenticate('django-alice', 'alice-pass-1'))?.username).toBe('django-alice')
      expect(await users.authenticate('django-alice', 'alice-pass-2')).toBeNull()
    })

    it('a Django PBKDF2 hash is replaced by scrypt at the first successful login (must_update), and still logs in', async () => {
      await t.db
        .insertInto('gatehouse_users')
        .values({ username: 'django-bob', password: DJANGO_HASH, is_active: 1, is_staff: 0, date_joined: new Date().toISOString() })
        .execute()
      const stored = async (): Promise<string> =>
        (await t.db.selectFrom('gatehouse_users').select('password').where('username', '=', 'django-bob').executeTakeFirstOrThrow()).password
      expect(await users.authenticate('django-bob', 'wrong')).toBeNull()
      expect(await stored()).toBe(DJANGO_HASH)
      expect((await users.authenticate('django-bob', 'alice-pass-1'))?.username).toBe('django-bob')
      expect(await stored()).toMatch(/^scrypt\$/)
      expect((await users.authenticate('django-bob', 'alice-pass-1'))?.username).toBe('django-bob')
    })

    it('a weaker scrypt hash is upgraded to the store\'s cost at login', async () => {
      const weak = new KyselyUserStore({ db: t.db, scrypt: { N: 2 ** 10, r: 8, p: 1 } })
      const strong = new KyselyUserStore({ db: t.db, scrypt: { N: 2 ** 11, r: 8, p: 1 } })
      const user = await weak.create({ username: 'upgrade-me', password: 'pw-1' })
      const hash = async (): Promise<string> =>
        (await t.db.selectFrom('gatehouse_users').select('password').where('id', '=', Number(user.id)).executeTakeFirstOrThrow()).password
      expect(await hash()).toMatch(/^scrypt\$1024\$/)
      expect(await strong.checkPassword(user, 'pw-1')).toBe(true)
      expect(await hash()).toMatch(/^scrypt\$2048\$/)
    })

    it('an unusable password (!) never matches, by either method', async () => {
      const store = new KyselyUserStore({ db: t.db, scrypt: { N: 2 ** 10, r: 8, p: 1 } })
      const created = await store.create({ username: 'remote-made', password: null })
      expect(await store.authenticate('remote-made', '!')).toBeNull()
      expect(await store.authenticate('remote-made', '')).toBeNull()
      expect(await store.checkPassword(created, '')).toBe(false)
      expect(await store.checkPassword(created, '!')).toBe(false)
    })

    it('the default cost is DEFAULT_SCRYPT', async () => {
      const u = await new KyselyUserStore({ db: t.db }).create({ username: 'default-cost', password: 'pw' })
      const row = await t.db.selectFrom('gatehouse_users').select('password').where('id', '=', Number(u.id)).executeTakeFirstOrThrow()
      expect(row.password).toMatch(/^scrypt\$131072\$8\$1\$/)
    })

    it('a corrupt stored hash never authenticates and never throws', async () => {
      await t.db
        .insertInto('gatehouse_users')
        .values({ username: 'corrupt', password: 'scrypt$1000$8$1$c2FsdA==$aGFzaA==', is_active: 1, is_staff: 0, date_joined: new Date().toISOString() })
        .execute()
      await expect(users.authenticate('corrupt', 'x')).resolves.toBeNull()
    })
  })
}

describe('KyselyUserStore.setActive without an isActive column', () => {
  it('throws ConfigurationError: the mapping says every user is active', async () => {
    const db = {} as import('kysely').Kysely<{ members: { member_no: number; handle: string; secret: string } }>
    const store = new KyselyUserStore({ db, userTable: { table: 'members', columns: { id: 'member_no', username: 'handle', password: 'secret' }, idType: 'integer' } })
    await expect(store.setActive(1, false)).rejects.toThrow(ConfigurationError)
  })
})

describe('KyselyUserStore with a passwordHasher of its own', () => {
  const backend = BACKENDS.find((b) => b.available)!
  it('hashes and checks through it', async () => {
    const t = await openAuthDatabase(await backend.create())
    try {
      const hashed: string[] = []
      const hasher = {
        hash: async (password: string) => {
          hashed.push(password)
          return `mine$${password.length}$${[...password].reverse().join('')}`
        },
        verify: async (password: string, encoded: string) => encoded === `mine$${password.length}$${[...password].reverse().join('')}`,
        needsRehash: (encoded: string) => !encoded.startsWith('mine$'),
      }
      const users = new KyselyUserStore({ db: t.db, passwordHasher: hasher })
      const ann = await users.create({ username: 'ann', password: 'ann-pass' })
      const row = await t.db.selectFrom('gatehouse_users').select('password').where('username', '=', 'ann').executeTakeFirstOrThrow()
      expect(row.password).toBe('mine$8$ssap-nna')
      expect((await users.authenticate('ann', 'ann-pass'))?.id).toBe(ann.id)
      expect(await users.authenticate('ann', 'ann-pasX')).toBeNull()
      expect(await users.authenticate('nobody', 'x')).toBeNull()
      expect(await users.checkPassword(ann, 'ann-pass')).toBe(true)
      expect(hashed).toContain('ann-pass')
    } finally {
      await t.close()
    }
  })
})

describe('KyselyUserStore under a PasswordBudget (issue 45 item 9)', () => {
  const backend = BACKENDS.find((b) => b.available)!
  it('runs at most `concurrent` checks at once; the next wait; past `queued`, 503 with Retry-After and no check', async () => {
    const t = await openAuthDatabase(await backend.create())
    try {
      // A hasher whose checks the test holds open, counting how many run at once.
      let inFlight = 0
      let most = 0
      const gates: (() => void)[] = []
      const hasher = {
        hash: async (password: string) => `held$${password}`,
        verify: async (password: string, encoded: string) => {
          inFlight += 1
          most = Math.max(most, inFlight)
          await new Promise<void>((resolve) => gates.push(resolve))
          inFlight -= 1
          return encoded === `held$${password}`
        },
        needsRehash: () => false,
      }
      const budget = new PasswordBudget({ concurrent: 2, queued: 1, retryAfterSeconds: 2 })
      const users = new KyselyUserStore({ db: t.db, passwordHasher: hasher, passwordBudget: budget })
      const ann = await users.create({ username: 'ann', password: 'ann-pass' })
      const until = async (done: () => boolean): Promise<void> => {
        while (!done()) await new Promise((resolve) => setTimeout(resolve, 1))
      }
      const first = users.authenticate('ann', 'ann-pass')
      const second = users.checkPassword(ann, 'wrong')
      const third = users.authenticate('nobody', 'x')
      await until(() => gates.length + budget.waiting === 3)
      expect([gates.length, budget.waiting]).toEqual([2, 1])
      // Two checks run, one waits: the fourth is refused, and its check never starts.
      const refused = await users.authenticate('ann', 'ann-pass').catch((error: unknown) => error)
      expect(refused).toMatchObject({ status: 503, code: 'password_checks_busy', headers: [['Retry-After', '2']] })
      expect(gates.length).toBe(2)
      gates.shift()?.()
      await until(() => gates.length === 2)
      expect(budget.waiting).toBe(0)
      // The waiting check got the turn; nothing else is left to start.
      while (gates.length > 0) gates.shift()?.()
      expect((await first)?.id).toBe(ann.id)
      expect(await second).toBe(false)
      expect(await third).toBeNull()
      expect(most).toBe(2)
      // Hashing a new password takes a turn as well.
      const held = heldTurn(budget)
      const again = heldTurn(budget)
      await until(() => budget.running === 2)
      const waiting = users.create({ username: 'bea', password: 'bea-pass' })
      await until(() => budget.waiting === 1)
      await expect(users.setPassword(ann.id, 'new-pass')).rejects.toMatchObject({ status: 503 })
      held.release()
      again.release()
      expect((await waiting).username).toBe('bea')
    } finally {
      await t.close()
    }
  })
})

/** Takes one turn of `budget` and keeps it until `release`. */
function heldTurn(budget: PasswordBudget): { release: () => void } {
  let release: () => void = () => undefined
  const gate = new Promise<void>((resolve) => (release = resolve))
  void budget.run(() => gate)
  return { release: () => release() }
}
