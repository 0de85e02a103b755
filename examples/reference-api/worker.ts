/**
 * The reference API as a Cloudflare Worker: the routes the Node entry serves (routes/), on
 * Hono, over a D1 database (`DB`) and a `ThrottleCounter` Durable Object namespace
 * (`THROTTLES`), without the `nodejs_compat` flag. JWT, OAuth 2.0 and the admin pages are not
 * served (their settings are Node's; worker-context.ts). gatehouse's tests bundle it and serve
 * it from workerd through Miniflare, and run the conformance suite on it (vitest.workerd.config.ts).
 *
 *   [[d1_databases]] binding = "DB"
 *   [[durable_objects.bindings]] name = "THROTTLES", class_name = "ThrottleCounter"
 */
import { Hono } from 'hono'
import { getConnInfo } from 'hono/cloudflare-workers'
import { drfRouting, mountRoutes } from 'drf-gatehouse/hono'
import { ThrottleCounter } from 'drf-gatehouse/d1'
import { referenceRoutes } from './routes/index.js'
import { referenceWorkerContext, type ReferenceWorkerEnv } from './worker-context.js'

export { ThrottleCounter }

/** The app on `env`: one per isolate (the bindings stay the same for its life). */
async function buildWorkerApp(env: ReferenceWorkerEnv): Promise<Hono> {
  const ref = await referenceWorkerContext(env)
  // The client's address (throttles, the remote-user scheme's trusted addresses) from CF-Connecting-IP.
  return mountRoutes(drfRouting(new Hono()), referenceRoutes(ref), { getConnInfo })
}

let app: Hono | undefined

export default {
  async fetch(request: Request, env: ReferenceWorkerEnv): Promise<Response> {
    // Only a built app is kept, never the promise of one: workerd ties a pending promise to the
    // request that started it, so requests awaiting another one's start hang for good when that
    // request ends first (answered, or its client gone). Requests arriving at once each build one.
    app ??= await buildWorkerApp(env)
    return app.fetch(request, env)
  },
}
