/**
 * A Worker whose throttle counts in D1 (`KyselyThrottleStore` over `openD1`): the app the
 * two-isolate test runs twice, on one D1 database. `GET /hit/` is throttled per client
 * address at 7 a minute; `POST /login/` checks a password under `LoginFailureThrottle`.
 */
import { Hono, type Context } from 'hono'
import { AllowAny, AnonRateThrottle, createApi, LoginFailureThrottle } from 'drf-gatehouse'
import { errorHandler, policies, requestContext, type GatehouseEnv } from 'drf-gatehouse/hono'
import { openD1 } from 'drf-gatehouse/d1'
import { KyselyThrottleStore } from 'drf-gatehouse/kysely'

type D1 = Parameters<typeof openD1>[0]

/** This isolate's own id (module state, which no other isolate sees), drawn on the first request: not at load time, where Workers refuse random values. */
let isolate: string | undefined

const cloudflare = { getConnInfo: (c: Context) => ({ remote: { address: c.req.header('cf-connecting-ip') } }) }

function build(env: { DB: D1 }): Hono<GatehouseEnv> {
  const { db, dialect } = openD1(env.DB)
  const store = new KyselyThrottleStore({ db, dialect })
  const api = createApi({ authentication: [], permissions: [new AllowAny()] })
  const hits = new AnonRateThrottle({ store, rate: '7/min' })
  const loginFailures = new LoginFailureThrottle({ store, rate: '3/min', waitForSlotMs: 0 })
  const app = new Hono<GatehouseEnv>({ strict: true })
  app.get('/isolate/', (c) => c.json({ isolate: (isolate ??= crypto.randomUUID()) }))
  app.get('/hit/', policies(api, { throttles: [hits], ...cloudflare }), (c) => c.json({ ok: true }))
  app.post('/login/', policies(api, cloudflare), async (c) => {
    const { request } = requestContext(c)
    const password = c.req.header('x-password') ?? ''
    // A slow check, so that concurrent guesses overlap.
    const user = await loginFailures.guard(request, 'ada', async () => {
      await new Promise((resolve) => setTimeout(resolve, 20))
      return password === 'right' ? { username: 'ada' } : null
    })
    return c.json({ ok: user !== null }, user === null ? 400 : 200)
  })
  app.onError(errorHandler(api))
  return app
}

let app: Hono<GatehouseEnv> | undefined
export default {
  fetch: (request: Request, env: { DB: D1 }) => (app ??= build(env)).fetch(request),
}
