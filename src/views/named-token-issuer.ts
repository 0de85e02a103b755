import type { UserId } from '../core/user.js'
import type { NamedTokenStore } from '../stores/named-token-store.js'
import type { TokenRecord, TokenStore } from '../stores/token-store.js'

/** Options for `namedTokenIssuer`. */
export interface NamedTokenIssuerOptions {
  /** The name every token it issues gets. @default 'obtain' */
  readonly name?: string
  /** Seconds until each issued token expires; `null`: never. @default null */
  readonly expiresIn?: number | null
}

/**
 * The token source of `obtainAuthTokenView` for an app in the safer token mode (after
 * `gatehouse migrate-tokens`): every successful `POST` issues a **new** named token (kept
 * only as a digest, listed and revoked like the others) instead of a plaintext DRF key.
 * Unlike DRF's get-or-create, a token cannot be shown twice, so each call answers another
 * one; give `expiresIn` so that tokens clients drop do not live on forever.
 *
 * @example
 * api.view(obtainAuthTokenView({ users, tokens: namedTokenIssuer(namedTokens, { expiresIn: 30 * 86_400 }) }))
 */
export function namedTokenIssuer(store: Pick<NamedTokenStore, 'create'>, options: NamedTokenIssuerOptions = {}): Pick<TokenStore, 'getOrCreate'> {
  const name = options.name ?? 'obtain'
  const expiresIn = options.expiresIn ?? null
  return {
    async getOrCreate(userId: UserId): Promise<TokenRecord> {
      const { key, info } = await store.create(userId, { name, expiresIn })
      return { key, userId, created: info.created, expiresAt: info.expiresAt }
    },
  }
}
