import { createServer, type Server } from 'node:http'
import Fastify, { type FastifyInstance } from 'fastify'
import { mountView, setupFastify } from 'gatehouse/fastify'
import { router } from 'gatehouse/node'
import type { ReferenceContext } from './context.js'
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
}

/** The frameworks the reference API runs on (`GATEHOUSE_FRAMEWORK`). */
export const FRAMEWORKS = ['fastify', 'node'] as const
export type Framework = (typeof FRAMEWORKS)[number]

/** node:http server options with the request and header timeouts every framework shares. */
function serverTimeouts(options: BuildAppOptions): { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number } {
  const headersTimeout = options.headersTimeoutMs ?? 10_000
  const requestTimeout = Math.max(options.requestTimeoutMs ?? 30_000, headersTimeout)
  // Node checks these timeouts every connectionsCheckingInterval: check often enough to matter.
  return { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.min(1_000, headersTimeout) }
}

/** Builds the reference API on a Fastify instance (not yet listening). */
export async function buildApp(ref: ReferenceContext, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    serverFactory: (handler) => createServer(serverTimeouts(options), handler),
  })
  setupFastify(app)
  for (const { path, view } of referenceRoutes(ref)) mountView(app, path, view)
  await app.ready()
  return app
}

/** Builds the reference API on plain node:http (not yet listening). */
export function buildNodeServer(ref: ReferenceContext, options: BuildAppOptions = {}): Server {
  return createServer(serverTimeouts(options), router(referenceRoutes(ref)))
}

/** A listening reference API on `framework`: its address, and how to stop it (in-flight requests finish). */
export interface RunningApp {
  readonly address: string
  close(): Promise<void>
}

/** Builds and starts the reference API on `framework`. */
export async function startApp(framework: Framework, ref: ReferenceContext, listen: { port: number; host: string }, options: BuildAppOptions = {}): Promise<RunningApp> {
  if (framework === 'fastify') {
    const app = await buildApp(ref, options)
    const address = await app.listen(listen)
    return { address, close: () => app.close() }
  }
  const server = buildNodeServer(ref, options)
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
