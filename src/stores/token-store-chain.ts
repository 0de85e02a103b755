import { isPromise, type MaybePromise } from '../core/maybe-promise.js'
import type { TokenRecord, TokenStore, TokenWithUser } from './token-store.js'

/** The lookup side of a token store: what `TokenAuthentication` needs. */
export type TokenLookup = Pick<TokenStore, 'findByKey' | 'findWithUser' | 'touch'>

/**
 * Where a store may keep `findWithUser(key)` with a fallback: when it finds nothing, it answers
 * `orElse()` from inside its own answer (its driver's one promise), so `chainTokenStores` asks
 * the next store without a `then` of its own. Internal (the Kysely stores have it); a store
 * without it is chained with a `then`.
 */
export const FIND_WITH_USER_OR_ELSE: unique symbol = Symbol('gatehouse.findWithUserOrElse')

/** `findWithUser(key) ?? orElse()`, in the store's own answer. */
export type FindWithUserOrElse = (key: string, orElse: () => MaybePromise<TokenWithUser | null>) => MaybePromise<TokenWithUser | null>

interface MaybeOrElse {
  readonly [FIND_WITH_USER_OR_ELSE]?: FindWithUserOrElse
}

/**
 * One lookup over several token stores, asked in order until one knows the key: DRF tokens
 * and named tokens on a single `Authorization: Token …` scheme. `findWithUser` is there when
 * every store has it; `touch` tells every store that has one (each ignores tokens not its own).
 * Put the DRF store first: it skips keys longer than 40 characters without a query, so a
 * prefixed named token costs one lookup. `findWithUser` and `touch` answer synchronously while
 * the stores do (SQLite), so the chain adds no promise of its own there.
 *
 * @example
 * new TokenAuthentication({ tokens: chainTokenStores(drfTokens, namedTokens), users })
 */
export function chainTokenStores(...stores: readonly TokenLookup[]): TokenLookup {
  const findByKey = async (key: string): Promise<TokenRecord | null> => {
    for (const store of stores) {
      const found = await store.findByKey(key)
      if (found !== null) return found
    }
    return null
  }
  const touchers = stores.filter((store) => store.touch !== undefined)
  // In order, each after the previous one's promise (if it made one).
  const touchFrom = (token: TokenRecord, index: number): MaybePromise<void> => {
    for (let i = index; i < touchers.length; i++) {
      const store = touchers[i] as TokenLookup
      const touched = (store.touch as (token: TokenRecord) => MaybePromise<void>).call(store, token)
      if (isPromise(touched)) return i + 1 === touchers.length ? touched : touched.then(() => touchFrom(token, i + 1))
    }
    return undefined
  }
  const touch = (token: TokenRecord): MaybePromise<void> => touchFrom(token, 0)
  if (!stores.every((store) => store.findWithUser !== undefined)) return { findByKey, touch }
  const withUser = stores.map((store) => store.findWithUser as (key: string) => MaybePromise<TokenWithUser | null>)
  const orElses = stores.map((store) => (store as MaybeOrElse)[FIND_WITH_USER_OR_ELSE])
  // No async loop: a key the first store knows costs its lookup alone (a store without the
  // fallback entry point adds one `then` when it answers a promise).
  const findFrom = (key: string, index: number): MaybePromise<TokenWithUser | null> => {
    for (let i = index; i < withUser.length; i++) {
      const store = stores[i]
      if (i + 1 === withUser.length) return (withUser[i] as (key: string) => MaybePromise<TokenWithUser | null>).call(store, key)
      const orElse = orElses[i]
      if (orElse !== undefined) return orElse.call(store, key, () => findFrom(key, i + 1))
      const found = (withUser[i] as (key: string) => MaybePromise<TokenWithUser | null>).call(store, key)
      if (isPromise(found)) return found.then((record) => record ?? findFrom(key, i + 1))
      if (found !== null) return found
    }
    return null
  }
  const findWithUser = (key: string): MaybePromise<TokenWithUser | null> => findFrom(key, 0)
  return { findByKey, findWithUser, touch }
}
