import type { TokenRecord, TokenStore, TokenWithUser } from './token-store.js'

/** The lookup side of a token store: what `TokenAuthentication` needs. */
export type TokenLookup = Pick<TokenStore, 'findByKey' | 'findWithUser' | 'touch'>

/**
 * One lookup over several token stores, asked in order until one knows the key: DRF tokens
 * and named tokens on a single `Authorization: Token …` scheme. `findWithUser` is there when
 * every store has it; `touch` tells every store that has one (each ignores tokens not its own).
 * Put the DRF store first: it skips keys longer than 40 characters without a query, so a
 * prefixed named token costs one lookup.
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
  const touch = async (token: TokenRecord): Promise<void> => {
    for (const store of stores) if (store.touch !== undefined) await store.touch(token)
  }
  if (!stores.every((store) => store.findWithUser !== undefined)) return { findByKey, touch }
  const withUser = stores.map((store) => store.findWithUser as (key: string) => Promise<TokenWithUser | null>)
  // Chained promises rather than an async loop: a key the first store knows costs its lookup and one `then`.
  const findFrom = (key: string, index: number): Promise<TokenWithUser | null> => {
    const found = (withUser[index] as (key: string) => Promise<TokenWithUser | null>).call(stores[index], key)
    return index + 1 === withUser.length ? found : found.then((record) => record ?? findFrom(key, index + 1))
  }
  const findWithUser = (key: string): Promise<TokenWithUser | null> => (withUser.length === 0 ? Promise.resolve(null) : findFrom(key, 0))
  return { findByKey, findWithUser, touch }
}
