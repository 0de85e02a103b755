import { Hono } from 'hono'
import { AnonRateThrottle, createApi, IsAuthenticated, MemoryThrottleStore, TokenAuthentication } from 'drf-gatehouse'
import { errorHandler, policies, requestContext, type GatehouseEnv } from 'drf-gatehouse/hono'
import { authMigrations, KyselyTokenStore, KyselyUserStore, migrate, openDatabase, type AuthDatabase } from 'drf-gatehouse/kysely'

// Deno's global, as Deno declares it (only what this file uses).
declare const Deno: {
  env: { get(name: string): string | undefined }
  serve(options: { port: number; hostname: string }, handler: (request: Request, info: { remoteAddr: { hostname: string } }) => Response | Promise<Response>): unknown
}

// On Deno, openDatabase opens SQLite with node:sqlite (better-sqlite3 is a Node addon).
const database = await openDatabase<AuthDatabase>(Deno.env.get('DATABASE_URL') ?? 'sqlite:gatehouse.sqlite3')
await migrate(database.db, authMigrations(database.dialect))
const users = new KyselyUserStore({ db: database.db })
const tokens = new KyselyTokenStore({ db: database.db })

const api = createApi({
  authentication: [new TokenAuthentication({ tokens, users })],
  // Counted per client address, which the Hono adapter reads from Deno.serve's remoteAddr.
  throttles: [new AnonRateThrottle({ store: new MemoryThrottleStore(), rate: '3/min' })],
})

const app = new Hono<GatehouseEnv>({ strict: true })
app.get('/api/hello/', policies(api), (c) => c.json({ from: requestContext(c).request.remoteAddress }))
app.get('/api/me/', policies(api, { permissions: [new IsAuthenticated()] }), (c) => c.json({ username: c.get('user').username }))
app.onError(errorHandler(api))

// Loopback only, as a front server (nginx) would proxy to it.
Deno.serve({ port: Number(Deno.env.get('PORT') ?? 8000), hostname: '127.0.0.1' }, app.fetch)
