import { route, type Route } from '../core/route.js'
import { ConfigurationError } from '../core/errors.js'
import { jwtBlacklistMigrations } from '../kysely/jwt-blacklist-migrations.js'
import type { Kysely } from 'kysely'
import { KyselyJwtBlacklistStore, type JwtBlacklistDatabase } from '../kysely/kysely-jwt-blacklist-store.js'
import type { GatehouseFeature } from '../setup.js'
import { JWTAuthentication } from './jwt-authentication.js'
import { JwtCodec } from './jwt-codec.js'
import { resolveJwtSettings, type JwtSettings } from './jwt-settings.js'
import { jwksView } from './jwks-view.js'
import { jwtBlacklistView, jwtObtainPairView, jwtRefreshView, jwtVerifyView } from './token-views.js'

/** Options of the {@link jwt} feature: simplejwt's settings, and where its views live. */
export interface JwtFeatureOptions extends JwtSettings {
  /**
   * Where the views live: obtain at `prefix`, then `refresh/`, `verify/`, `blacklist/` (with the
   * blacklist) and `jwks/` (with an `RS*`/`ES*` key) under it; `false` for no routes (a server
   * that only checks tokens). @default '/api/token/' (simplejwt's documented URLs)
   */
  readonly prefix?: string | false
  /**
   * simplejwt's `token_blacklist` app in SQL (`gatehouse_jwt_tokens`, migrated with the rest):
   * the blacklist view, `blacklistAfterRotation`, and the admin pages' list of a user's refresh
   * tokens. `false`: no table, no blacklist view. @default true
   */
  readonly blacklist?: boolean
  /**
   * Add `JWTAuthentication` to the call's `authentication` (and so to the default `api`'s), as
   * simplejwt's `DEFAULT_AUTHENTICATION_CLASSES` does; `false` to put it only on views of your
   * choosing (`auth.feature(f).authentication`). @default true
   */
  readonly authentication?: boolean
}

/** What the {@link jwt} feature built: `auth.feature(f)`. */
export interface JwtFeatureParts {
  /** The codec the views and the scheme share. */
  readonly codec: JwtCodec
  /** `JWTAuthentication` on the call's user store (and the blacklist, for sliding tokens). */
  readonly authentication: JWTAuthentication
  /** The SQL blacklist, or `undefined` with `blacklist: false`. */
  readonly blacklist: KyselyJwtBlacklistStore | undefined
}

const PREFIX = /^\/(?:[A-Za-z0-9._~-]+\/)*$/

/**
 * JSON Web Tokens as simplejwt has them, as a `createGatehouse` feature: the codec from
 * `options` (checked now), `JWTAuthentication` on the call's users, the SQL blacklist
 * (`gatehouse_jwt_tokens`, tracked in `gatehouse_jwt_migrations`, so a database migrated with
 * `jwtBlacklistMigrations` by hand goes on from there) and the obtain, refresh, verify,
 * blacklist and JWKS views under `prefix`, the obtain view counting failures in the call's
 * `loginFailures`.
 *
 * @example
 * const tokens = jwt({ signingKey: process.env.JWT_SIGNING_KEY })
 * const auth = await createGatehouse({ database: process.env.DATABASE_URL, features: [tokens] })
 * await mountRoutes(app, auth.routes) // POST /api/token/, /api/token/refresh/, …
 * @throws ConfigurationError for a bad setting (a short HMAC key, a malformed prefix).
 */
export function jwt(options: JwtFeatureOptions): GatehouseFeature<JwtFeatureParts> {
  const { prefix: prefixOption, blacklist: withBlacklist, authentication: inDefaults, ...settings } = options
  const prefix = prefixOption ?? '/api/token/'
  if (prefix !== false && (typeof prefix !== 'string' || !PREFIX.test(prefix))) {
    throw new ConfigurationError('ERR_INVALID_SETTING', `jwt: "prefix" must be a path that starts and ends with "/" (plain segments), or false, got "${String(prefix)}"`)
  }
  // Checked when the app is configured, before any database is opened.
  const codec = new JwtCodec(resolveJwtSettings(settings))
  return {
    name: 'jwt',
    migrations: withBlacklist === false ? undefined : { tableName: 'gatehouse_jwt_migrations', migrations: jwtBlacklistMigrations },
    setup: ({ db, users, loginFailures }) => {
      // The migrations above created the table this store reads.
      const blacklist = withBlacklist === false ? undefined : new KyselyJwtBlacklistStore({ db: db as unknown as Kysely<JwtBlacklistDatabase> })
      const scheme = new JWTAuthentication({ codec, users, blacklist })
      return {
        parts: { codec, authentication: scheme, blacklist },
        authentication: inDefaults === false ? [] : [scheme],
        jwtBlacklist: blacklist,
        routes: ({ api }): Route[] => {
          if (prefix === false) return []
          return [
            route(prefix, api.view(jwtObtainPairView({ codec, users, loginFailures, blacklist }))),
            route(`${prefix}refresh/`, api.view(jwtRefreshView({ codec, users, blacklist }))),
            route(`${prefix}verify/`, api.view(jwtVerifyView({ codec, blacklist }))),
            ...(blacklist === undefined ? [] : [route(`${prefix}blacklist/`, api.view(jwtBlacklistView({ codec, blacklist })))]),
            ...(codec.settings.publicJwk === null ? [] : [route(`${prefix}jwks/`, api.view(jwksView({ codec })))]),
          ]
        },
      }
    },
  }
}
