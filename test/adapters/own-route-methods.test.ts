/**
 * Issue 41 item 2: an app's own routes guarded by `policies()` answer a method their path does
 * not take as DRF does (the route's policies, then `405 {"detail": "Method \"PATCH\" not
 * allowed."}` with `Allow`), on every framework, with the pieces each quick start installs:
 * Fastify's `drfErrors`, Express's `errorHandler(api)` (4 and 5), Hono's `drfRouting(app)`,
 * node:http's `methods`. `Allow` lists every method the app's routes take for the path, a
 * route of the same path registered elsewhere included (and it still answers its method); an
 * unknown path is DRF's 404 with the quick start's one line. Real servers on real sockets.
 */
import { createRequire } from 'node:module'
import { createServer, request as httpRequest, type RequestListener, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getRequestListener } from '@hono/node-server'
import express from 'express'
import Fastify from 'fastify'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApi, IsAuthenticated, jsonResponse, type AuthenticationScheme } from 'drf-gatehouse'
import * as ex from 'drf-gatehouse/express'
import * as fa from 'drf-gatehouse/fastify'
import * as ho from 'drf-gatehouse/hono'
import * as no from 'drf-gatehouse/node'

// `express4` is the npm alias of Express 4; it ships no types, so it is typed as Express 5's factory.
const express4 = createRequire(import.meta.url)('express4') as typeof express

/** `X-User: name` identifies; a 401 challenges with `Custom`. */
const headerScheme: AuthenticationScheme = {
  async authenticate(req) {
    const name = req.headers.get('x-user')
    if (name === null) return null
    return { user: { id: 1, username: name, isActive: true, isStaff: false, isAuthenticated: true }, auth: null }
  },
  authenticateHeader: () => 'Custom realm="api"',
}
const api = createApi({ authentication: [headerScheme] })
const guard = () => ({ name: 'Book', permissions: [new IsAuthenticated()] })
const BOOK = '/api/books/:id/'
const OWN = { own: true }

type Name = 'fastify' | 'express' | 'express4' | 'hono' | 'node'
const NAMES: readonly Name[] = ['fastify', 'express', 'express4', 'hono', 'node']

/**
 * The quick start's app: GET, PUT and DELETE of a book guarded by `policies()`, a POST of the
 * same path registered elsewhere without them, an unguarded own route, and the one line that
 * makes unknown paths DRF's 404 (`withNotFound`).
 */
async function listener(name: Name, withNotFound: boolean): Promise<RequestListener | Server> {
  if (name === 'fastify') {
    const app = Fastify()
    await app.register(fa.drfErrors, { api })
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      app.route({ method, url: BOOK, preHandler: fa.policies(api, guard()), handler: async () => ({ method }) })
    }
    await app.register(async (scope) => void scope.post(BOOK, async () => ({ method: 'POST' })))
    app.get('/plain/', async () => OWN)
    if (withNotFound) app.setNotFoundHandler(fa.notFound)
    await app.ready()
    return app.server
  }
  if (name === 'express' || name === 'express4') {
    const make = name === 'express' ? express : express4
    const app = make()
    app.use(make.json())
    const router = make.Router({ strict: true })
    for (const method of ['get', 'put', 'delete'] as const) router[method]('/books/:id/', ex.policies(api, guard()), (req, res) => void res.json({ method: req.method }))
    app.use('/api', router)
    app.post(BOOK, (_req, res) => void res.json({ method: 'POST' }))
    app.get('/plain/', (_req, res) => void res.json(OWN))
    if (withNotFound) app.use(ex.notFound)
    app.use(ex.errorHandler(api))
    return app
  }
  if (name === 'hono') {
    const app = ho.drfRouting(new Hono<ho.GatehouseEnv>())
    for (const method of ['get', 'put', 'delete'] as const) app[method](BOOK, ho.policies(api, guard()), (c) => c.json({ method: c.req.method }))
    const elsewhere = new Hono()
    elsewhere.post('/books/:id/', (c) => c.json({ method: 'POST' }))
    app.route('/api', elsewhere)
    app.get('/plain/', (c) => c.json(OWN))
    app.onError(ho.errorHandler(api))
    return getRequestListener(app.fetch)
  }
  const book = no.policies(api, { ...guard(), path: BOOK, methods: ['GET', 'POST', 'PUT', 'DELETE'] })((req, res) => no.sendApiResponse(res, jsonResponse(200, { method: req.method })))
  return (req, res) => {
    if (req.url?.startsWith('/api/books/') === true) return void book(req, res)
    // A hand-written router matches the method too; anything else falls to notFound.
    if (req.url === '/plain/' && req.method === 'GET') return no.sendApiResponse(res, jsonResponse(200, OWN))
    void no.notFound(req, res)
  }
}

const servers = new Map<string, Server>()

beforeAll(async () => {
  for (const name of NAMES) {
    for (const withNotFound of [true, false]) {
      const made = await listener(name, withNotFound)
      const server = typeof made === 'function' ? createServer(made) : made
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      servers.set(`${name}${withNotFound ? '' : ' default'}`, server)
    }
  }
})

afterAll(async () => {
  await Promise.all(
    [...servers.values()].map(
      (server) =>
        new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeAllConnections()
        }),
    ),
  )
})

interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  readonly body: string
}

function send(server: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  const port = (servers.get(server)?.address() as AddressInfo).port
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

const ALICE = { 'X-User': 'alice' }
const ALLOW = 'GET, POST, PUT, DELETE, HEAD, OPTIONS'

describe.each(NAMES)('own routes on %s', (name) => {
  it.each([name, `${name} default`].filter((server) => server !== 'hono default'))('%s: a method no route of the path takes is DRF 405 with Allow', async (server) => {
    const answer = await send(server, 'PATCH', '/api/books/1/', ALICE)
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 405, body: '{"detail":"Method \\"PATCH\\" not allowed."}' })
    expect(answer.headers['allow']).toBe(ALLOW)
    expect(answer.headers['content-type']).toBe('application/json')
  })

  it("runs the route's policies first, as DRF: anonymous is 401, with Allow", async () => {
    const answer = await send(name, 'PATCH', '/api/books/1/')
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 401, body: '{"detail":"Authentication credentials were not provided."}' })
    expect(answer.headers['www-authenticate']).toBe('Custom realm="api"')
    expect(answer.headers['allow']).toBe(ALLOW)
  })

  if (name === 'express' || name === 'express4') {
    // Express's router answers OPTIONS itself before the app's middleware run (docs/express.md says so).
    it("leaves OPTIONS to Express's router, which lists the registered methods", async () => {
      const answer = await send(name, 'OPTIONS', '/api/books/1/', ALICE)
      expect(answer.status).toBe(200)
      // Express 5 writes `DELETE, GET, HEAD, PUT`, Express 4 `GET,HEAD,PUT,DELETE`: no POST, no DRF body.
      expect(String(answer.headers['allow']).split(',').map((method) => method.trim()).sort()).toEqual(['DELETE', 'GET', 'HEAD', 'PUT'])
    })
  } else {
    it('answers OPTIONS with DRF metadata and Allow', async () => {
      const answer = await send(name, 'OPTIONS', '/api/books/1/', ALICE)
      expect(answer.status).toBe(200)
      expect(answer.headers['allow']).toBe(ALLOW)
      expect(JSON.parse(answer.body)).toMatchObject({ name: 'Book', renders: ['application/json'] })
    })
  }

  it('leaves the methods the routes take to them, one registered elsewhere included', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
      const answer = await send(name, method, '/api/books/1/', ALICE)
      expect({ status: answer.status, body: JSON.parse(answer.body) as unknown }).toEqual({ status: 200, body: { method } })
    }
    expect((await send(name, 'HEAD', '/api/books/1/', ALICE)).status).toBe(200)
  })

  it("answers an unknown path with DRF's 404 (the quick start's one line)", async () => {
    const answer = await send(name, 'GET', '/nope/')
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 404, body: '{"detail":"Not found."}' })
  })

  it('leaves the path of an unguarded route to the app: no 405 there', async () => {
    expect((await send(name, 'PATCH', '/plain/')).status).toBe(404)
  })
})
