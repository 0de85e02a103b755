import type { GatehouseFeature } from '../setup.js'
import { OAuth2Authentication, type OAuth2AuthenticationOptions } from './oauth2-authentication.js'
import { usersByClaim } from './users-by-claim.js'

/** Options of the {@link oauth2} feature: `OAuth2Authentication`'s, and how its users are found. */
export interface OAuth2FeatureOptions extends Omit<OAuth2AuthenticationOptions, 'user'> {
  /**
   * Who a token's user is: `{ claim }` for the account of the call's user store whose username is
   * that claim (`usersByClaim`), or `OAuth2Authentication`'s own `user` function. @default the
   * token's principal, with no account (`OAuth2Authentication`'s default)
   */
  readonly user?: OAuth2AuthenticationOptions['user'] | { readonly claim: string } | undefined
  /**
   * Add the scheme to the call's `authentication` (and so to the default `api`'s); `false` to
   * put it only on views of your choosing (`auth.feature(f).authentication`). Mind that JWT's
   * scheme reads `Bearer` too: the first of the two refuses the other's tokens. @default true
   */
  readonly authentication?: boolean
}

/** What the {@link oauth2} feature built: `auth.feature(f)`. */
export interface OAuth2FeatureParts {
  /** The resource-server scheme, for views with `TokenHasScope`. */
  readonly authentication: OAuth2Authentication
}

/**
 * An OAuth 2.0 resource server as a `createGatehouse` feature: `OAuth2Authentication` for an
 * identity provider's access tokens (checked now: a bad option throws before any database is
 * opened), its users optionally mapped to the call's user store. No tables, no routes.
 *
 * @example
 * const provider = oauth2({ issuer: 'https://id.example.com/', audience: 'api', user: { claim: 'email' } })
 * const auth = await createGatehouse({ database: process.env.DATABASE_URL, features: [provider] })
 * auth.api.view({ handlers, permissions: [new TokenHasScope('read')] })
 * @throws ConfigurationError for a bad option.
 */
export function oauth2(options: OAuth2FeatureOptions): GatehouseFeature<OAuth2FeatureParts> {
  const { user, authentication: inDefaults, ...rest } = options
  const byClaim = typeof user === 'object' && user !== null ? user.claim : undefined
  // Built now for its checks; with `{ claim }`, built again on the store once it exists.
  const checked = new OAuth2Authentication({ ...rest, ...(typeof user === 'function' ? { user } : {}) })
  return {
    name: 'oauth2',
    setup: ({ users }) => {
      const scheme = byClaim === undefined ? checked : new OAuth2Authentication({ ...rest, user: usersByClaim(users, byClaim) })
      return { parts: { authentication: scheme }, authentication: inDefaults === false ? [] : [scheme] }
    },
  }
}
