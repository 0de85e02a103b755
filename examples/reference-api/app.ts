import { createServer, type RequestListener, type Server } from 'node:http'
import { getRequestListener, RequestError } from '@hono/node-server'
import express from 'express'
import Fastify, { type FastifyInstance } from 'fastify'
import { jsonResponse } from 'gatehouse'
import { errorHandler, mountRoutes as mountExpressRoutes, sendApiResponse as sendExpressResponse } from 'gatehouse/express'
import { djangoRewriteUrl, mountRoutes as mountFastifyRoutes, sendApiResponse as sendFastifyResponse } from 'gatehouse/fastify'
import { djangoGetPath, mountRoutes as mountHonoRoutes, toResponse, withoutBodilessContentType } from 'gatehouse/hono'
import { mountRoutes as mountNodeRoutes, router } from 'gatehouse/node'
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

const NOT_FOUND = jsonResponse(404, { detail: 'Not found.' })
const MALFORMED = jsonResponse(400, { detail: 'Malformed request.' })
const INVALID_HOST = jsonResponse(400, { detail: 'Invalid Host header.' })

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
    // Route the percent-decoded path, as Django does (`/api%2Fwhoami/` is `/api/whoami/`).
    rewriteUrl: djangoRewriteUrl,
    // A path Fastify cannot decode (`/api/%zz/`) matches no route: DRF's 404, as Django answers.
    frameworkErrors: (error, _request, reply) => {
      sendFastifyResponse(reply, error.code === 'FST_ERR_BAD_URL' ? NOT_FOUND : MALFORMED)
    },
  })
  await mountFastifyRoutes(app, referenceRoutes(ref), options.prefix === undefined ? {} : { prefix: options.prefix })
  await app.ready()
  return app
}

/** The reference API as an Express app: the views, then DRF's 404 and error answers. */
export function buildExpressApp(ref: ReferenceContext, options: BuildAppOptions = {}): express.Express {
  const app = express()
  app.disable('x-powered-by')
  app.disable('etag')
  // DRF's URL conf: `/api/whoami` is not `/api/whoami/`, nor `/API/WHOAMI/`.
  app.set('strict routing', true)
  app.set('case sensitive routing', true)
  app.use(decodedPaths)
  const api = express.Router({ strict: true, caseSensitive: true })
  mountExpressRoutes(api, referenceRoutes(ref))
  if (options.prefix === undefined) app.use(api)
  else app.use(options.prefix, api)
  app.use((_req, res) => sendExpressResponse(res, NOT_FOUND))
  app.use(errorHandler())
  return app
}

/**
 * Django (and Fastify, Hono and gatehouse's node:http router) route on the percent-decoded
 * path, so `/api/who%61mi/` is `/api/whoami/`; Express routes on the raw one. This puts the
 * decoded path, re-encoded segment by segment, where Express's router looks. Links keep
 * the path the client sent (`req.originalUrl`).
 */
function decodedPaths(req: express.Request, _res: express.Response, next: express.NextFunction): void {
  const query = req.url.indexOf('?')
  const path = query === -1 ? req.url : req.url.slice(0, query)
  if (path.includes('%')) {
    try {
      const decoded = decodeURIComponent(path).split('/').map(encodeURIComponent).join('/')
      req.url = decoded + (query === -1 ? '' : req.url.slice(query))
    } catch {
      // A malformed escape matches no route: the 404 below answers it.
    }
  }
  next()
}

/** The reference API as a Hono app: the views, then DRF's 404. */
export function buildHonoApp(ref: ReferenceContext, options: BuildAppOptions = {}): Hono {
  // The path as sent, percent-decoded as Django routes it (`%2F` included, `/./` kept).
  const app = new Hono({ strict: true, getPath: djangoGetPath })
  if (options.prefix === undefined) mountHonoRoutes(app, referenceRoutes(ref))
  else app.route(options.prefix, mountHonoRoutes(new Hono({ strict: true }), referenceRoutes(ref)))
  app.notFound(() => toResponse(NOT_FOUND))
  return app
}

/** The request listener of the reference API on `framework` (Fastify builds its own server). */
function listenerFor(framework: Exclude<Framework, 'fastify'>, ref: ReferenceContext, options: BuildAppOptions): RequestListener {
  switch (framework) {
    case 'express':
      return buildExpressApp(ref, options)
    case 'hono':
      // @hono/node-server would add `Content-Type: text/plain` to the logout's 204.
      return withoutBodilessContentType(
        getRequestListener(buildHonoApp(ref, options).fetch, {
          // The request could not become a Web Request (a malformed Host): DRF's 400, not an empty one.
          errorHandler: (error) => (error instanceof RequestError ? toResponse(INVALID_HOST) : undefined),
        }),
      )
    case 'node':
      return router(referenceRoutes(ref), options.prefix === undefined ? {} : { prefix: options.prefix })
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
