import Fastify, { type FastifyInstance } from 'fastify'
import { setupFastify } from '../../src/adapters/fastify/index.js'
import type { ReferenceContext } from './context.js'
import { registerArticleRoutes } from './routes/articles.js'
import { registerIdentityRoutes } from './routes/identity.js'
import { registerThrottledRoutes } from './routes/throttled.js'
import { registerTokenRoutes } from './routes/tokens.js'

/** Options for the reference API's Fastify instance. */
export interface BuildAppOptions {
  /** Fastify's logger. @default false */
  readonly logger?: boolean
}

/** Builds the reference API on a Fastify instance (not yet listening). */
export async function buildApp(ref: ReferenceContext, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({ logger: options.logger ?? false })
  setupFastify(app)
  registerIdentityRoutes(app, ref)
  registerTokenRoutes(app, ref)
  registerThrottledRoutes(app, ref)
  registerArticleRoutes(app, ref)
  await app.ready()
  return app
}
