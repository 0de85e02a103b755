/**
 * A Worker whose throttles count in D1 (`KyselyThrottleStore` over `openD1`) or, when a
 * `THROTTLES` Durable Object namespace is bound, in `ThrottleCounter` objects: the app the
 * two-isolate test runs twice on one database or one namespace. `GET /hit/` is throttled per
 * client address at 7 a minute; `POST /login/` checks a password under `LoginFailureThrottle`.
 */
import { Hono, type Context } from 'hono'
import { AllowAny, AnonRateThrottle, createApi, LoginFailureThrottle } from 'drf-gatehouse'
import { errorHandler, policies, requestContext, type GatehouseEnv } from 'drf-gatehouse/hono'
import { openD1, ThrottleCounter } from 'drf-gatehouse/d1'
import { KyselyThrottleStore } from 'drf-gatehouse/kysely'

type D1 = Parameters<typeof openD1>[0]
type Env = { DB: D1; THROTTLES?: Parameters<typeof ThrottleCounter.store>[0] }

export { ThrottleCounter }

/** This isolate's own id (module state, which no other isolate sees), drawn on the first request: not at load time, where Workers refuse random values. */
let isolate: string | undefined

const cloudflare = { getConnInfo: (c: Context) => ({ remote: { address: c.req.header('cf-connecting-ip') } }) }

function build(env: Env): Hono<GatehouseEnv> {
  const { db, dialect } = openD1(env.DB)
  const store = env.THROTTLES === undefined ? new KyselyThrottleStore({ db, dialect }) : ThrottleCounter.store(env.THROTTLES)
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
  fetch: (request: Request, env: Env) => (app ??= build(env)).fetch(request),
}
