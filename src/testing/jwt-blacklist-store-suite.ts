import assert from 'node:assert/strict'
import type { UserId } from '../core/user.js'
import type { JwtBlacklistStore, OutstandingJwt } from '../stores/jwt-blacklist-store.js'
import { uniqueName, type Factory, type TestApi } from './test-api.js'

/** Options for `runJwtBlacklistStoreSuite`. */
export interface JwtBlacklistStoreSuiteOptions extends TestApi {
  /** Names the `describe` block. @default 'JwtBlacklistStore contract' */
  readonly name?: string
  /** Your store (tables migrated). */
  readonly create: Factory<JwtBlacklistStore>
  /** A user id the store may record tokens for. @default 1 */
  readonly userId?: UserId
}

const HOUR = 3_600_000

/** A refresh token's record as the views make it, with a `jti` no other case uses. */
function token(userId: UserId, expiresInMs = HOUR): OutstandingJwt {
  const now = Date.now()
  return { jti: uniqueName('jti').replace(/-/g, ''), userId, expiresAt: new Date(now + expiresInMs), createdAt: new Date(now) }
}

/**
 * The `JwtBlacklistStore` contract (simplejwt's `token_blacklist` app): outstanding tokens
 * are not blacklisted, `blacklist` is atomic (of concurrent calls for one token exactly one
 * answers `true`, which is what makes refresh-token rotation single-use), and
 * `flushExpired` removes only expired rows.
 *
 * @example
 * runJwtBlacklistStoreSuite({ describe, it, create: () => new KyselyJwtBlacklistStore({ db }) })
 */
export function runJwtBlacklistStoreSuite(options: JwtBlacklistStoreSuiteOptions): void {
  const { describe, it, create } = options
  const userId = options.userId ?? 1
  describe(options.name ?? 'JwtBlacklistStore contract', () => {
    it('an outstanding token is not blacklisted until blacklist, which answers true once, then false', async () => {
      const store = await create()
      const t = token(userId)
      await store.addOutstanding(t)
      await store.addOutstanding(t)
      assert.equal(await store.isBlacklisted(t.jti), false)
      assert.equal(await store.blacklist(t), true)
      assert.equal(await store.isBlacklisted(t.jti), true)
      assert.equal(await store.blacklist(t), false)
      // Recording it as outstanding again does not lift the blacklisting.
      await store.addOutstanding(t)
      assert.equal(await store.isBlacklisted(t.jti), true)
    })

    it('a token the store never saw is recorded and blacklisted by blacklist (true), once', async () => {
      const store = await create()
      const t = token(userId)
      assert.equal(await store.isBlacklisted(t.jti), false)
      assert.equal(await store.blacklist(t), true)
      assert.equal(await store.isBlacklisted(t.jti), true)
      assert.equal(await store.blacklist(t), false)
    })

    it('concurrent blacklist calls for one token: exactly one answers true (known and unknown tokens)', async () => {
      const store = await create()
      for (const known of [true, false]) {
        for (let round = 0; round < 5; round++) {
          const t = token(userId)
          if (known) await store.addOutstanding(t)
          const answers = await Promise.all(Array.from({ length: 8 }, () => store.blacklist(t)))
          assert.equal(answers.filter((a) => a).length, 1, `${known ? 'known' : 'unknown'} token, round ${round}: ${JSON.stringify(answers)}`)
          assert.equal(await store.isBlacklisted(t.jti), true)
        }
      }
    })

    it('tokens are kept apart', async () => {
      const store = await create()
      const [a, b] = [token(userId), token(userId)]
      await store.addOutstanding(a)
      await store.addOutstanding(b)
      assert.equal(await store.blacklist(a), true)
      assert.equal(await store.isBlacklisted(b.jti), false)
      assert.equal(await store.blacklist(b), true)
    })

    it('flushExpired removes tokens expired before now (blacklisted or not), and no other', async () => {
      const store = await create()
      const [old, oldBlacklisted, live] = [token(userId, -60_000), token(userId, -60_000), token(userId)]
      await store.addOutstanding(old)
      await store.blacklist(oldBlacklisted)
      await store.blacklist(live)
      assert.ok((await store.flushExpired(new Date())) >= 2)
      assert.equal(await store.isBlacklisted(oldBlacklisted.jti), false)
      assert.equal(await store.isBlacklisted(live.jti), true)
    })

    it('odd jti values are "not blacklisted", never an error', async () => {
      const store = await create()
      for (const jti of ['', 'x'.repeat(10_000), 'a\0b', '\ud800', "' or 1=1 --"]) {
        assert.equal(await store.isBlacklisted(jti), false, `isBlacklisted(${JSON.stringify(jti.slice(0, 20))})`)
      }
    })
  })
}
