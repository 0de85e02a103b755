import { createServer } from 'node:http'
import Fastify, { type FastifyInstance } from 'fastify'
import { setupFastify } from 'gatehouse/fastify'
import type { ReferenceContext } from './context.js'
import { registerArticleRoutes } from './routes/articles.js'
import { registerIdentityRoutes } from './routes/identity.js'
import { registerThrottledRoutes } from './routes/throttled.js'
import { registerTokenRoutes } from './routes/tokens.js'

/** Options for the reference API's Fastify instance. */
export interface BuildAppOptions {
  /** Fastify's logger. @default false */
  readonly logger?: boolean
  /**
   * Time a client has to send its request headers (slowloris defence); the server closes
   * the connection with a 408 after it. @default 10_000
   */
  readonly headersTimeoutMs?: number
  /** Time a client has to send its whole request. @default 30_000 */
  readonly requestTimeoutMs?: number
}

/** Builds the reference API on a Fastify instance (not yet listening). */
export async function buildApp(ref: ReferenceContext, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const headersTimeout = options.headersTimeoutMs ?? 10_000
  const requestTimeout = Math.max(options.requestTimeoutMs ?? 30_000, headersTimeout)
  const app = Fastify({
    logger: options.logger ?? false,
    // Node checks these timeouts every connectionsCheckingInterval: check often enough to matter.
    serverFactory: (handler) =>
      createServer({ headersTimeout, requestTimeout, connectionsCheckingInterval: Math.min(1_000, headersTimeout) }, handler),
  })
  setupFastify(app)
  registerIdentityRoutes(app, ref)
  registerTokenRoutes(app, ref)
  registerThrottledRoutes(app, ref)
  registerArticleRoutes(app, ref)
  await app.ready()
  return app
}
