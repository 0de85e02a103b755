import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import type { StoredUser, UserId } from '../core/user.js'
import type { UserStore } from '../stores/user-store.js'
import { uniqueName, type Factory, type TestApi } from './test-api.js'

/** Options for `runUserStoreSuite`. */
export interface UserStoreSuiteOptions extends TestApi {
  /** Names the `describe` block. @default 'UserStore contract' */
  readonly name?: string
  /** Your store. Cases create users with unique names, so one store (and database) may serve them all. */
  readonly create: Factory<UserStore>
}

/** An id no user of the store can have: of the same type as a real one. */
function unknownIdLike(id: UserId): UserId {
  return typeof id === 'number' ? id + 1_000_003 : randomUUID()
}

/** An id of the other type (a string for integer ids, a number for string ids). */
function otherTypeId(id: UserId): UserId {
  return typeof id === 'number' ? randomUUID() : 987_654_321
}

/** `name` in fullwidth forms (`a` is `ａ`, U+FF41): NFKC makes it `name` again. */
function fullwidth(name: string): string {
  return name.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0))
}

function summary(user: StoredUser | null): object | null {
  return user === null ? null : { id: user.id, username: user.username, isActive: user.isActive, isStaff: user.isStaff, isAuthenticated: user.isAuthenticated }
}

/**
 * The `UserStore` contract (Django's ModelBackend): creating users, finding them by id and
 * by exact name, and `authenticate`/`checkPassword`, which never let an inactive user, a
 * wrong or empty password, an unusable password or odd input through, and never throw on it.
 * The optional methods, `setPassword` and `setActive`, are checked on a store that has
 * them (a store without them passes those cases, which say "when present").
 *
 * @example
 * import { describe, it } from 'vitest' // or 'node:test'
 * import { runUserStoreSuite } from 'drf-gatehouse/testing'
 * runUserStoreSuite({ describe, it, create: () => new MyUserStore() })
 */
export function runUserStoreSuite(options: UserStoreSuiteOptions): void {
  const { describe, it, create } = options
  describe(options.name ?? 'UserStore contract', () => {
    it('create returns the stored user; findById and findByUsername return it again', async () => {
      const store = await create()
      const username = uniqueName('user')
      const user = await store.create({ username, password: 'first-pass-1' })
      assert.deepEqual(summary(user), { id: user.id, username, isActive: true, isStaff: false, isAuthenticated: true })
      assert.ok(typeof user.id === 'number' || typeof user.id === 'string', 'the id is a number or a string')
      assert.deepEqual(summary(await store.findById(user.id)), summary(user))
      assert.deepEqual(summary(await store.findByUsername(username)), summary(user))
    })

    it('keeps the isActive and isStaff flags', async () => {
      const store = await create()
      const staff = await store.create({ username: uniqueName('staff'), password: null, isStaff: true })
      const inactive = await store.create({ username: uniqueName('inactive'), password: null, isActive: false })
      assert.equal((await store.findById(staff.id))?.isStaff, true)
      assert.equal((await store.findById(staff.id))?.isActive, true)
      assert.equal((await store.findById(inactive.id))?.isActive, false)
      assert.equal((await store.findById(inactive.id))?.isStaff, false)
    })

    it('gives every user its own id', async () => {
      const store = await create()
      const a = await store.create({ username: uniqueName('a'), password: null })
      const b = await store.create({ username: uniqueName('b'), password: null })
      assert.notEqual(a.id, b.id)
    })

    it('refuses a duplicate username, and names are case-sensitive', async () => {
      const store = await create()
      const username = uniqueName('dup')
      await store.create({ username, password: 'x' })
      await assert.rejects(Promise.resolve().then(() => store.create({ username, password: 'y' })))
      assert.equal(await store.findByUsername(username.toUpperCase()), null, 'findByUsername matches case exactly')
      const upper = await store.create({ username: username.toUpperCase(), password: 'y' })
      assert.equal(upper.username, username.toUpperCase())
    })

    it('create normalises the username with NFKC (Django\'s normalize_username): fullwidth ａｄｍｉｎ is admin', async () => {
      const store = await create()
      const username = uniqueName('nfkc')
      const user = await store.create({ username: fullwidth(username), password: 'nfkc-pass-1' })
      assert.equal(user.username, username, 'create answers the normalised name')
      assert.equal((await store.findByUsername(username))?.id, user.id, 'the normalised name is the one stored')
      assert.equal((await store.authenticate(username, 'nfkc-pass-1'))?.id, user.id)
      await assert.rejects(Promise.resolve().then(() => store.create({ username, password: 'y' })), 'the look-alike of an existing name is a duplicate')
    })

    it('authenticate answers the user for the right password only', async () => {
      const store = await create()
      const username = uniqueName('auth')
      const user = await store.create({ username, password: 'right-pass-1' })
      assert.deepEqual(summary(await store.authenticate(username, 'right-pass-1')), summary(user))
      for (const wrong of ['right-pass-', 'right-pass-11', 'RIGHT-PASS-1', '', ' right-pass-1']) {
        assert.equal(await store.authenticate(username, wrong), null, `password ${JSON.stringify(wrong)}`)
      }
      assert.equal(await store.authenticate(username.toUpperCase(), 'right-pass-1'), null, 'names are case-sensitive')
    })

    it('authenticate is null for an unknown user, an inactive one, and an unusable password', async () => {
      const store = await create()
      const inactive = uniqueName('inactive')
      await store.create({ username: inactive, password: 'inactive-pass', isActive: false })
      const unusable = uniqueName('unusable')
      await store.create({ username: unusable, password: null })
      assert.equal(await store.authenticate(uniqueName('ghost'), 'any-pass'), null)
      assert.equal(await store.authenticate(inactive, 'inactive-pass'), null)
      for (const password of ['', '!', 'null']) assert.equal(await store.authenticate(unusable, password), null)
    })

    it('odd input is "not found", never an error', async () => {
      const store = await create()
      for (const username of ['', 'a\0b', '\ud800', 'x'.repeat(5_000), "' or 1=1 --"]) {
        assert.equal(await store.findByUsername(username), null, `findByUsername(${JSON.stringify(username.slice(0, 20))})`)
        assert.equal(await store.authenticate(username, 'x'), null, `authenticate(${JSON.stringify(username.slice(0, 20))})`)
      }
      const user = await store.create({ username: uniqueName('ids'), password: null })
      assert.equal(await store.findById(unknownIdLike(user.id)), null, 'an unknown id')
      assert.equal(await store.findById(otherTypeId(user.id)), null, 'an id of the other type')
    })

    it('checkPassword checks the stored password, and is false for an unknown user', async () => {
      const store = await create()
      const user = await store.create({ username: uniqueName('check'), password: 'check-pass-1' })
      assert.equal(await store.checkPassword(user, 'check-pass-1'), true)
      assert.equal(await store.checkPassword(user, 'check-pass-2'), false)
      assert.equal(await store.checkPassword(user, ''), false)
      assert.equal(await store.checkPassword({ ...user, id: unknownIdLike(user.id) }, 'check-pass-1'), false)
      const none = await store.create({ username: uniqueName('none'), password: null })
      assert.equal(await store.checkPassword(none, ''), false)
      assert.equal(await store.checkPassword(none, '!'), false)
    })

    it('setPassword (when present) replaces the password; null makes it unusable; false for an unknown user', async () => {
      const store = await create()
      if (store.setPassword === undefined) return
      const username = uniqueName('setpw')
      const user = await store.create({ username, password: 'old-pass-1' })
      assert.equal(await store.setPassword(user.id, 'new-pass-2'), true)
      assert.equal(await store.authenticate(username, 'old-pass-1'), null, 'the old password no longer works')
      assert.equal((await store.authenticate(username, 'new-pass-2'))?.id, user.id)
      assert.equal(await store.setPassword(user.id, null), true)
      for (const password of ['new-pass-2', '', '!']) assert.equal(await store.authenticate(username, password), null, `unusable: ${JSON.stringify(password)}`)
      assert.equal(await store.setPassword(unknownIdLike(user.id), 'x-pass-3'), false)
      assert.equal(await store.setPassword(otherTypeId(user.id), 'x-pass-3'), false, 'an id of the other type')
    })

    it('setActive (when present) deactivates and reactivates; false for an unknown user', async () => {
      const store = await create()
      if (store.setActive === undefined) return
      const username = uniqueName('active')
      const user = await store.create({ username, password: 'active-pass-1' })
      const other = await store.create({ username: uniqueName('bystander'), password: null })
      assert.equal(await store.setActive(user.id, false), true)
      assert.equal((await store.findById(user.id))?.isActive, false)
      assert.equal((await store.findByUsername(username))?.isActive, false)
      assert.equal(await store.authenticate(username, 'active-pass-1'), null, 'an inactive user does not authenticate')
      assert.equal((await store.findById(other.id))?.isActive, true, 'other users are untouched')
      assert.equal(await store.setActive(user.id, true), true)
      assert.equal((await store.findById(user.id))?.isActive, true)
      assert.equal((await store.authenticate(username, 'active-pass-1'))?.id, user.id)
      assert.equal(await store.setActive(unknownIdLike(user.id), false), false)
      assert.equal(await store.setActive(otherTypeId(user.id), false), false, 'an id of the other type')
    })

    it('stores a hash, not the password: findById and authenticate answer no password field', async () => {
      const store = await create()
      const username = uniqueName('secret')
      const user = await store.create({ username, password: 'secret-pass-1' })
      const found = await store.authenticate(username, 'secret-pass-1')
      for (const value of [user, found, await store.findById(user.id)]) {
        assert.ok(value !== null)
        assert.ok(!JSON.stringify(value).includes('secret-pass-1'), 'the password is not in the user object')
      }
    })
  })
}
