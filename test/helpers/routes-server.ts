import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getRequestListener } from '@hono/node-server'
import express from 'express'
import Fastify from 'fastify'
import type { Route } from 'drf-gatehouse'
import { drfRouting as expressRouting, errorHandler, mountRoutes as mountExpressRoutes, notFound } from 'drf-gatehouse/express'
import { drfRouting as fastifyRouting, mountRoutes as mountFastifyRoutes } from 'drf-gatehouse/fastify'
import { drfRouting as honoRouting, mountRoutes as mountHonoRoutes, requestErrorHandler } from 'drf-gatehouse/hono'
import { router } from 'drf-gatehouse/node'
import { Hono } from 'hono'
import type { Framework } from '../../examples/reference-api/app.js'

/** Routes served on a loopback port. */
export interface RunningRoutes {
  readonly baseUrl: string
  close(): Promise<void>
}

/**
 * Serves `routes` (a test's own views, beside the reference API) on `framework` at 127.0.0.1
 * on a free port, mounted the way the reference API mounts its own: DRF's routing rules, then
 * the views.
 */
export async function startRoutes(framework: Framework, routes: readonly Route[]): Promise<RunningRoutes> {
  if (framework === 'fastify') {
    const app = Fastify({ ...fastifyRouting(), logger: false })
    await mountFastifyRoutes(app, routes)
    const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' })
    return { baseUrl, close: () => app.close() }
  }
  let server: Server
  if (framework === 'express') {
    const app = mountExpressRoutes(expressRouting(express()), routes)
    app.use(notFound)
    app.use(errorHandler())
    server = createServer(app)
  } else if (framework === 'hono') {
    server = createServer(getRequestListener(mountHonoRoutes(honoRouting(new Hono()), routes).fetch, { errorHandler: requestErrorHandler }))
  } else {
    server = createServer(router(routes))
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()))
        server.closeIdleConnections()
      }),
  }
}
