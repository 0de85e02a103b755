import type { MaybePromise } from '../core/maybe-promise.js'
import type { TokenWithUser } from '../stores/token-store.js'

/** How a `TokenCache` reads a key it does not hold: the stores' lookup. */
export type TokenLoader = (key: string) => MaybePromise<TokenWithUser | null>

/**
 * Remembers token lookups between requests (a hit may answer synchronously), for `TokenAuthentication`'s `cache` option.
 * `MemoryTokenCache` is the built-in; a cache of your own implements this one method.
 *
 * The contract: answer either what `load(key)` answers now or a pair `load(key)` answered
 * for this very key not longer ago than the cache's time-to-live and not before the last
 * invalidation of its user; never a pair for another key. Failures of `load` reach the
 * caller (a store that is down answers 503).
 *
 * @example
 * new TokenAuthentication({ tokens, users, cache: new MemoryTokenCache({ ttlMs: 60_000, invalidation: bus }) })
 */
export interface TokenCache {
  get(key: string, load: TokenLoader): MaybePromise<TokenWithUser | null>
}
