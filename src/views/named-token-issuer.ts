import { ConfigurationError, PermissionDenied } from '../core/errors.js'
import type { UserId } from '../core/user.js'
import { NamedTokenLimitExceeded, type NamedTokenStore } from '../stores/named-token-store.js'
import type { TokenRecord, TokenStore } from '../stores/token-store.js'

/** Options for `namedTokenIssuer`. */
export interface NamedTokenIssuerOptions {
  /** The name every token it issues gets. @default 'obtain' */
  readonly name?: string
  /**
   * Seconds until each issued token expires (django-rest-knox's `TOKEN_TTL`, 10 hours by
   * default); `null`: never, so every token a client drops lives on until revoked.
   * @default 36000 (10 hours)
   */
  readonly expiresIn?: number | null
  /**
   * Most live (unexpired) tokens of this issuer's `name` one user may hold
   * (django-rest-knox's `TOKEN_LIMIT_PER_USER`): past it the obtain view answers
   * `403 {"detail": "Maximum amount of tokens allowed per user exceeded."}` until one expires
   * or is revoked. The store counts and inserts as one step (`NewNamedToken.limit`), so
   * concurrent requests never end past it. 100 by default, so a client that obtains a token per
   * run and drops it cannot pile up tokens without end (knox's default is none); `null`: no limit.
   * @default 100
   */
  readonly maxPerUser?: number | null
}

const DEFAULT_EXPIRES_IN = 10 * 3600
/** The default `maxPerUser`. */
export const DEFAULT_MAX_TOKENS_PER_USER = 100

/** django-rest-knox's answer once a user holds `TOKEN_LIMIT_PER_USER` tokens. */
export const TOKEN_LIMIT_MESSAGE = 'Maximum amount of tokens allowed per user exceeded.'

/**
 * The token source of `obtainAuthTokenView` for an app in the safer token mode (after
 * `drf-gatehouse migrate-tokens`): every successful `POST` issues a **new** named token (kept
 * only as a digest, listed and revoked like the others) instead of a plaintext DRF key.
 * Unlike DRF's get-or-create, a token cannot be shown twice, so each call answers another
 * one: as in django-rest-knox, each expires (10 hours by default, `expiresIn`), and
 * `maxPerUser` limits how many live ones one user holds at once (100 by default).
 *
 * @example
 * api.view(obtainAuthTokenView({ users, tokens: namedTokenIssuer(namedTokens, { expiresIn: 8 * 3600, maxPerUser: 10 }) }))
 * @throws ConfigurationError for an `expiresIn` or `maxPerUser` that is not a positive integer (or `null`).
 */
export function namedTokenIssuer(store: Pick<NamedTokenStore, 'create' | 'list'>, options: NamedTokenIssuerOptions = {}): Pick<TokenStore, 'getOrCreate'> {
  const name = options.name ?? 'obtain'
  const expiresIn = options.expiresIn === undefined ? DEFAULT_EXPIRES_IN : options.expiresIn
  const maxPerUser = options.maxPerUser === undefined ? DEFAULT_MAX_TOKENS_PER_USER : options.maxPerUser
  if (expiresIn !== null && (!Number.isSafeInteger(expiresIn) || expiresIn < 1)) {
    throw new ConfigurationError('ERR_INVALID_SETTING', 'namedTokenIssuer option "expiresIn" must be a positive integer of seconds or null')
  }
  if (maxPerUser !== null && (!Number.isSafeInteger(maxPerUser) || maxPerUser < 1)) {
    throw new ConfigurationError('ERR_INVALID_SETTING', 'namedTokenIssuer option "maxPerUser" must be a positive integer or null')
  }
  return {
    async getOrCreate(userId: UserId): Promise<TokenRecord> {
      if (maxPerUser !== null) {
        const now = Date.now()
        const live = (await store.list(userId)).filter((t) => t.name === name && (t.expiresAt === null || t.expiresAt.getTime() > now))
        if (live.length >= maxPerUser) throw new PermissionDenied(TOKEN_LIMIT_MESSAGE)
      }
      try {
        const { key, info } = await store.create(userId, { name, expiresIn, ...(maxPerUser === null ? {} : { limit: { max: maxPerUser, name, unexpiredOnly: true } }) })
        return { key, userId, created: info.created, expiresAt: info.expiresAt }
      } catch (error) {
        if (error instanceof NamedTokenLimitExceeded) throw new PermissionDenied(TOKEN_LIMIT_MESSAGE)
        throw error
      }
    },
  }
}
