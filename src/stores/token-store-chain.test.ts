import { describe, expect, it } from 'vitest'
import type { MaybePromise } from '../core/maybe-promise.js'
import type { StoredUser } from '../core/user.js'
import { chainTokenStores, FIND_WITH_USER_OR_ELSE, type FindWithUserOrElse, type TokenLookup } from './token-store-chain.js'
import type { TokenRecord, TokenWithUser } from './token-store.js'

const user = (id: number): StoredUser => ({ id, username: `u${id}`, isActive: true, isStaff: false, isAuthenticated: true })
const record = (key: string, userId: number): TokenWithUser => ({ token: { key, userId, created: new Date(0) }, user: user(userId) })

type Mode = 'sync' | 'promise'

/** A lookup over fixed keys answering synchronously or with promises; `calls` lists what it was asked. */
function fakeStore(name: string, keys: Readonly<Record<string, number>>, mode: Mode, options: { orElse?: boolean } = {}): TokenLookup & { calls: string[] } {
  const calls: string[] = []
  const answer = <T>(value: T): MaybePromise<T> => (mode === 'sync' ? value : Promise.resolve(value))
  const find = (key: string): TokenWithUser | null => {
    const id = keys[key]
    return id === undefined ? null : record(`${name}:${key}`, id)
  }
  const store: TokenLookup & { calls: string[]; [FIND_WITH_USER_OR_ELSE]?: FindWithUserOrElse } = {
    calls,
    findByKey: async (key) => find(key)?.token ?? null,
    findWithUser: (key) => {
      calls.push(`find ${key}`)
      return answer(find(key))
    },
    touch: (token: TokenRecord) => {
      calls.push(`touch ${token.key}`)
      return mode === 'sync' ? undefined : Promise.resolve().then(() => void calls.push(`touched ${token.key}`))
    },
  }
  if (options.orElse === true) {
    store[FIND_WITH_USER_OR_ELSE] = (key, orElse) => {
      calls.push(`find-or-else ${key}`)
      const found = find(key)
      return mode === 'sync' ? (found ?? orElse()) : Promise.resolve().then(() => found ?? orElse())
    }
  }
  return store
}

describe('chainTokenStores', () => {
  for (const mode of ['sync', 'promise'] as const) {
    for (const orElse of [false, true]) {
      describe(`stores answering ${mode === 'sync' ? 'synchronously' : 'with promises'}${orElse ? ', with the fallback entry point' : ''}`, () => {
        it('answers the first store that knows the key, asking the next ones only when it does not', async () => {
          const a = fakeStore('a', { k1: 1, both: 2 }, mode, { orElse })
          const b = fakeStore('b', { k2: 3, both: 4 }, mode, { orElse })
          const chain = chainTokenStores(a, b)
          const found = chain.findWithUser?.('both')
          // Synchronous stores: a synchronous chain (no promise of its own).
          expect(found instanceof Promise).toBe(mode === 'promise')
          expect((await found)?.token.key).toBe('a:both')
          expect(b.calls).toEqual([])
          expect((await chain.findWithUser?.('k2'))?.token.key).toBe('b:k2')
          expect(await chain.findWithUser?.('none')).toBeNull()
          const asked = orElse ? 'find-or-else' : 'find'
          expect(a.calls).toEqual([`${asked} both`, `${asked} k2`, `${asked} none`])
          // The last store has nothing after it: its plain lookup.
          expect(b.calls).toEqual(['find k2', 'find none'])
        })

        it('touch tells every store in order, each after the previous one finished', async () => {
          const a = fakeStore('a', {}, mode, { orElse })
          const b = fakeStore('b', {}, mode, { orElse })
          const touched = chainTokenStores(a, b).touch?.({ key: 'k', userId: 1, created: new Date(0) })
          expect(touched instanceof Promise).toBe(mode === 'promise')
          await touched
          expect([...a.calls, ...b.calls]).toEqual(mode === 'sync' ? ['touch k', 'touch k'] : ['touch k', 'touched k', 'touch k', 'touched k'])
        })
      })
    }
  }

  it('mixes stores: a synchronous miss, then a store answering a promise', async () => {
    const a = fakeStore('a', {}, 'sync', { orElse: true })
    const b = fakeStore('b', { k: 7 }, 'promise')
    const c = fakeStore('c', { k: 8 }, 'sync')
    const found = chainTokenStores(a, b, c).findWithUser?.('k')
    expect(found).toBeInstanceOf(Promise)
    expect((await found)?.user.id).toBe(7)
    expect(c.calls).toEqual([])
  })

  it('a failure of a store reaches the caller', async () => {
    const failing: TokenLookup = { findByKey: async () => null, findWithUser: () => Promise.reject(new Error('store down')) }
    await expect(Promise.resolve(chainTokenStores(failing, fakeStore('b', { k: 1 }, 'sync')).findWithUser?.('k'))).rejects.toThrow('store down')
  })

  it('has findWithUser only when every store has it', () => {
    const plain: TokenLookup = { findByKey: async () => null }
    expect(chainTokenStores(plain, fakeStore('b', {}, 'sync')).findWithUser).toBeUndefined()
    expect(chainTokenStores(fakeStore('a', {}, 'sync')).findWithUser).toBeDefined()
  })
})
