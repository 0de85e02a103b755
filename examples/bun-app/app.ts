import { Hono } from 'hono'
import { AnonRateThrottle, createApi, IsAuthenticated, MemoryThrottleStore, TokenAuthentication } from 'drf-gatehouse'
import { errorHandler, policies, requestContext, type GatehouseEnv } from 'drf-gatehouse/hono'
import { authMigrations, KyselyTokenStore, KyselyUserStore, migrate, openDatabase, type AuthDatabase } from 'drf-gatehouse/kysely'

// Bun's global, as the bun-types package declares it (only what this file uses).
declare const Bun: { serve(options: { fetch: Hono<GatehouseEnv>['fetch']; hostname: string }): { readonly url: URL } }

// On Bun, openDatabase opens SQLite with bun:sqlite (better-sqlite3 is a Node addon).
const database = await openDatabase<AuthDatabase>(process.env.DATABASE_URL ?? 'sqlite:gatehouse.sqlite3')
await migrate(database.db, authMigrations(database.dialect))
const users = new KyselyUserStore({ db: database.db })
const tokens = new KyselyTokenStore({ db: database.db })

const api = createApi({
  authentication: [new TokenAuthentication({ tokens, users })],
  // Counted per client address, which the Hono adapter asks Bun's server for.
  throttles: [new AnonRateThrottle({ store: new MemoryThrottleStore(), rate: '3/min' })],
})

const app = new Hono<GatehouseEnv>({ strict: true })
app.get('/api/hello/', policies(api), (c) => c.json({ from: requestContext(c).request.remoteAddress }))
app.get('/api/me/', policies(api, { permissions: [new IsAuthenticated()] }), (c) => c.json({ username: c.get('user').username }))
app.onError(errorHandler(api))

// Loopback only, as a front server (nginx) would proxy to it; the port comes from PORT (3000 by default).
const server = Bun.serve({ fetch: app.fetch, hostname: '127.0.0.1' })
console.log(`listening on ${server.url.href}`)
