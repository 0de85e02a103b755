import type { UserId } from '../core/user.js'
import type { TokenRecord, TokenStore } from './token-store.js'

/**
 * A named token as authentication sees it (`ctx.auth`): a `TokenRecord` whose `key` is the
 * token the client presented (the store keeps only its digest), plus its row.
 */
export interface NamedTokenRecord extends TokenRecord {
  /** The token's id, unique in the store: what `revoke` takes. */
  readonly id: number
  readonly name: string
  readonly expiresAt: Date | null
}

/** A named token as a listing shows it: never the token itself. */
export interface NamedTokenInfo {
  readonly id: number
  readonly userId: UserId
  readonly name: string
  /** The token's first characters (its configured prefix and a few more), to tell tokens apart. */
  readonly displayPrefix: string
  readonly created: Date
  /** When it stops working; `null`: never. */
  readonly expiresAt: Date | null
  /** When it last authenticated a request, to the minute; `null`: never. */
  readonly lastUsedAt: Date | null
}

/** What `NamedTokenStore.create` is given. */
export interface NewNamedToken {
  /** A label for the owner ("laptop", "ci"); 1 to 100 characters, not unique. */
  readonly name: string
  /** When the token stops working. @default null: never */
  readonly expiresAt?: Date | null
  /**
   * Or: seconds from its creation time until it stops working (counted on the store's
   * clock, so `expiresAt - created` is exactly this). Ignored when `expiresAt` is given.
   */
  readonly expiresIn?: number | null
  /**
   * Create the token only while the user holds fewer than `limit.max` tokens (of `limit.name`
   * when given; unexpired ones only with `limit.unexpiredOnly`), counted and inserted as one
   * step, so concurrent creates never end past it; past it `create` throws
   * `NamedTokenLimitExceeded`. The named-token views and `namedTokenIssuer` pass it (and also
   * count beforehand, so a store of your own that ignores it still bounds the count, within a
   * few). @default no limit
   */
  readonly limit?: NamedTokenLimit
}

/** A cap on a user's tokens that `NamedTokenStore.create` keeps (`NewNamedToken.limit`). */
export interface NamedTokenLimit {
  /** Most tokens the user may hold, this one included. */
  readonly max: number
  /** Count only tokens of this name. @default every name */
  readonly name?: string
  /** Count only tokens that have not expired. @default false: expired ones count until revoked */
  readonly unexpiredOnly?: boolean
}

/** What `NamedTokenStore.create` throws when the user already holds `limit.max` tokens: nothing was created. */
export class NamedTokenLimitExceeded extends Error {
  constructor(readonly max: number) {
    super(`the user already holds ${max} tokens (the limit)`)
    this.name = 'NamedTokenLimitExceeded'
  }
}

/** A token just created: the only time its plaintext `key` exists outside the client. */
export interface CreatedNamedToken {
  /** The token to hand to the client, once. Not kept anywhere. */
  readonly key: string
  readonly info: NamedTokenInfo
}

/**
 * The safer token mode: a user holds many named tokens, each kept only as a digest (a
 * leaked table reveals no usable token), each with an optional expiry and a last-used time.
 * Its lookup side is `TokenStore`'s, so `TokenAuthentication` uses it unchanged. There is no
 * get-or-create: a token cannot be shown again, so every `create` makes a new one.
 */
export interface NamedTokenStore extends Pick<TokenStore, 'findByKey' | 'findWithUser' | 'touch'> {
  /** Makes a new token for the user and answers it, the only time it is shown. */
  create(userId: UserId, token: NewNamedToken): Promise<CreatedNamedToken>
  /** The user's tokens, oldest first, expired ones included (they still show until revoked). */
  list(userId: UserId): Promise<NamedTokenInfo[]>
  /** Deletes one of the user's tokens. @returns false when the user has no token with that id. */
  revoke(userId: UserId, id: number): Promise<boolean>
  /** Deletes every token of the user. @returns how many there were. */
  revokeAll(userId: UserId): Promise<number>
}
