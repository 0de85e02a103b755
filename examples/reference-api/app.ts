import { createServer, type RequestListener, type Server } from 'node:http'
import { getRequestListener } from '@hono/node-server'
import express from 'express'
import Fastify, { type FastifyInstance } from 'fastify'
import { drfRouting as expressRouting, errorHandler, mountRoutes as mountExpressRoutes, notFound } from 'drf-gatehouse/express'
import { drfRouting as fastifyRouting, mountRoutes as mountFastifyRoutes } from 'drf-gatehouse/fastify'
import { drfRouting as honoRouting, mountRoutes as mountHonoRoutes, requestErrorHandler, withoutBodilessContentType } from 'drf-gatehouse/hono'
import { mountRoutes as mountNodeRoutes, router } from 'drf-gatehouse/node'
import { Hono } from 'hono'
import type { ReferenceContext } from './context.js'
import { runtimeServerName, serveOnRuntime } from './runtime-server.js'
import { referenceRoutes } from './routes/index.js'

/** Options for the reference API's server. */
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
  /**
   * A path to mount every route under, each framework its own way (`'/v1'`: `/v1/api/whoami/`).
   * @default none
   */
  readonly prefix?: string
}

/** The frameworks the reference API runs on (`GATEHOUSE_FRAMEWORK`). */
export const FRAMEWORKS = ['fastify', 'express', 'hono', 'node'] as const
export type Framework = (typeof FRAMEWORKS)[number]

/** `mountRoutes`' options: the prefix, when there is one. */
function mountOptions(options: BuildAppOptions): { prefix?: string } {
  return options.prefix === undefined ? {} : { prefix: options.prefix }
}

/** node:http server options with the request and header timeouts every framework shares. */
function serverTimeouts(options: BuildAppOptions): { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number } {
  const headersTimeout = options.headersTimeoutMs ?? 10_000
  const requestTimeout = Math.max(options.requestTimeoutMs ?? 30_000, headersTimeout)
  // Node checks these timeouts every connectionsCheckingInterval: check often enough to matter.
  return { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.min(1_000, headersTimeout) }
}

/** Builds the reference API on a Fastify instance (not yet listening): DRF's routing rules, then the views. */
export async function buildApp(ref: ReferenceContext, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    ...fastifyRouting(),
    logger: options.logger ?? false,
    serverFactory: (handler) => createServer(serverTimeouts(options), handler),
  })
  await mountFastifyRoutes(app, referenceRoutes(ref), mountOptions(options))
  await app.ready()
  return app
}

/** The reference API as an Express app: DRF's routing rules, the views, then DRF's 404 and error answers. */
export function buildExpressApp(ref: ReferenceContext, options: BuildAppOptions = {}): express.Express {
  const app = expressRouting(express())
  app.disable('x-powered-by')
  app.disable('etag')
  mountExpressRoutes(app, referenceRoutes(ref), mountOptions(options))
  app.use(notFound)
  app.use(errorHandler())
  return app
}

/** The reference API as a Hono app: DRF's routing rules (and 404), then the views. */
export function buildHonoApp(ref: ReferenceContext, options: BuildAppOptions = {}): Hono {
  return mountHonoRoutes(honoRouting(new Hono()), referenceRoutes(ref), mountOptions(options))
}

/** The request listener of the reference API on `framework` (Fastify builds its own server). */
function listenerFor(framework: Exclude<Framework, 'fastify'>, ref: ReferenceContext, options: BuildAppOptions): RequestListener {
  switch (framework) {
    case 'express':
      return buildExpressApp(ref, options)
    case 'hono':
      // @hono/node-server would add `Content-Type: text/plain` to the logout's 204, and answer a malformed Host with an empty 400.
      return withoutBodilessContentType(getRequestListener(buildHonoApp(ref, options).fetch, { errorHandler: requestErrorHandler }))
    case 'node':
      return router(referenceRoutes(ref), mountOptions(options))
  }
}

/** Builds the reference API on plain node:http (not yet listening). */
export function buildNodeServer(ref: ReferenceContext, options: BuildAppOptions = {}): Server {
  return mountNodeRoutes(createServer(serverTimeouts(options)), referenceRoutes(ref))
}

/** A listening reference API on `framework`: its address, and how to stop it (in-flight requests finish). */
export interface RunningApp {
  readonly address: string
  close(): Promise<void>
}

/**
 * Builds and starts the reference API on `framework`. Hono runs on the runtime's own server
 * on Bun and Deno (`Bun.serve`, `Deno.serve`), on node:http through @hono/node-server on Node.
 */
export async function startApp(framework: Framework, ref: ReferenceContext, listen: { port: number; host: string }, options: BuildAppOptions = {}): Promise<RunningApp> {
  if (framework === 'hono' && runtimeServerName() !== null) return serveOnRuntime(buildHonoApp(ref, options).fetch, listen)
  if (framework === 'fastify') {
    const app = await buildApp(ref, options)
    const address = await app.listen(listen)
    return { address, close: () => app.close() }
  }
  const server = createServer(serverTimeouts(options), listenerFor(framework, ref, options))
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(listen.port, listen.host, () => resolve())
  })
  const bound = server.address()
  const host = typeof bound === 'object' && bound !== null ? bound : { address: listen.host, port: listen.port, family: 'IPv4' }
  const address = `http://${host.family === 'IPv6' ? `[${host.address}]` : host.address}:${host.port}`
  return {
    address,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()))
        server.closeIdleConnections()
      }),
  }
}
