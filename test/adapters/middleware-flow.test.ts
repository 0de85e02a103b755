/**
 * Middleware style answers the same request byte for byte on every adapter: the flow (host,
 * authentication, policies, Vary, error rendering, logging) is the core's `Policies.run` and
 * `errorResponse`; each adapter only translates. Real servers over real sockets.
 */
import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { serve, type ServerType } from '@hono/node-server'
import express from 'express'
import Fastify, { type FastifyInstance } from 'fastify'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AllowAny, createApi, IsAuthenticated, jsonResponse, ValidationError, type Api, type AuthenticationScheme, type RequestContext } from 'drf-gatehouse'
import * as ex from 'drf-gatehouse/express'
import * as fa from 'drf-gatehouse/fastify'
import * as ho from 'drf-gatehouse/hono'
import * as no from 'drf-gatehouse/node'

/** `X-User: name` identifies; the answer depends on that header (Vary), and a 401 challenges with `Custom`. */
const headerScheme: AuthenticationScheme = {
  vary: ['X-User'],
  async authenticate(req) {
    const name = req.headers.get('x-user')
    if (name === null) return null
    return { user: { id: 1, username: name, isActive: true, isStaff: false, isAuthenticated: true }, auth: null }
  },
  authenticateHeader: () => 'Custom realm="api"',
}

const logged: string[] = []
const api: Api = createApi({ authentication: [headerScheme], logError: (error) => logged.push(String(error)) })

/** The app's own handlers, the same on every framework: each gets the request context. */
const handlers = {
  private: async (ctx: RequestContext) => jsonResponse(200, { user: ctx.user.username }),
  invalid: async (): Promise<never> => {
    throw new ValidationError({ title: ['This field is required.'] })
  },
  crash: async (): Promise<never> => {
    throw new Error('database password is hunter2')
  },
  echo: async (ctx: RequestContext) => jsonResponse(200, { received: await ctx.request.body() }),
  // Routes outside the views: on Fastify, the app's own routes at the root, outside the `gatehouse` plugin (Fastify's JSON parser).
  own: async (ctx: RequestContext) => jsonResponse(200, { received: await ctx.request.body() }),
  ownPrivate: async (ctx: RequestContext) => jsonResponse(200, { received: await ctx.request.body() }),
}
type Name = keyof typeof handlers
const ROUTES: readonly (readonly [Name, 'GET' | 'POST', boolean])[] = [
  ['private', 'GET', true],
  ['invalid', 'POST', false],
  ['crash', 'POST', false],
  ['echo', 'POST', false],
  ['own', 'POST', false],
  ['ownPrivate', 'POST', true],
]
/** The routes Fastify registers at the root, outside the `gatehouse` plugin. */
const OUTSIDE_PLUGIN: ReadonlySet<Name> = new Set(['own', 'ownPrivate'])
const policyOptions = (authenticated: boolean) => ({ permissions: authenticated ? [new IsAuthenticated()] : [new AllowAny()] })

function expressApp(): express.Express {
  const app = express()
  app.disable('x-powered-by')
  app.disable('etag')
  for (const [name, method, authenticated] of ROUTES) {
    const route = method === 'GET' ? app.get.bind(app) : app.post.bind(app)
    route(`/${name}/`, ex.policies(api, policyOptions(authenticated)), (req, res, next) => {
      handlers[name](ex.requestContext(req)).then((response) => ex.sendApiResponse(res, response), next)
    })
  }
  app.use(ex.errorHandler(api))
  return app
}

function honoApp(): Hono<ho.GatehouseEnv> {
  const app = new Hono<ho.GatehouseEnv>()
  for (const [name, method, authenticated] of ROUTES) {
    app.on(method, `/${name}/`, ho.policies(api, policyOptions(authenticated)), async (c) => ho.sendApiResponse(c, await handlers[name](ho.requestContext(c))))
  }
  app.onError(ho.errorHandler(api))
  return app
}

async function fastifyApp(): Promise<FastifyInstance> {
  const app = Fastify()
  // DRF's error shape for the app's own routes too (a malformed JSON body included).
  await app.register(fa.drfErrors, { api })
  for (const [name, method, authenticated] of ROUTES) {
    if (!OUTSIDE_PLUGIN.has(name)) continue
    app.route({
      method,
      url: `/${name}/`,
      preHandler: fa.policies(api, policyOptions(authenticated)),
      handler: async (request, reply) => fa.sendApiResponse(reply, await handlers[name](fa.requestContext(request))),
    })
  }
  await app.register(fa.gatehouse, {
    api,
    plugin: async (scope) => {
      for (const [name, method, authenticated] of ROUTES) {
        if (OUTSIDE_PLUGIN.has(name)) continue
        scope.route({
          method,
          url: `/${name}/`,
          preHandler: fa.policies(api, policyOptions(authenticated)),
          handler: async (request, reply) => fa.sendApiResponse(reply, await handlers[name](fa.requestContext(request))),
        })
      }
    },
  })
  return app
}

function nodeServer(): Server {
  const guarded = new Map<string, ReturnType<ReturnType<typeof no.policies>>>()
  for (const [name, , authenticated] of ROUTES) {
    guarded.set(`/${name}/`, no.policies(api, policyOptions(authenticated))(async (req, res) => no.sendApiResponse(res, await handlers[name](no.requestContext(req)))))
  }
  return createServer((req, res) => {
    const handler = guarded.get(req.url ?? '')
    if (handler === undefined) return no.sendApiResponse(res, jsonResponse(404, { detail: 'Not found.' }))
    void handler(req, res)
  })
}

/** One answer as the client sees it: status, gatehouse's headers (names lower-cased, sorted), body bytes. */
interface Answer {
  readonly status: number
  readonly headers: readonly string[]
  readonly body: string
}

/** Per-connection headers each server adds on its own, unrelated to the answer. */
const TRANSPORT = new Set(['date', 'connection', 'keep-alive'])

function send(port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => {
        const pairs: string[] = []
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = (res.rawHeaders[i] ?? '').toLowerCase()
          if (!TRANSPORT.has(name)) pairs.push(`${name}: ${res.rawHeaders[i + 1] ?? ''}`)
        }
        resolve({ status: res.statusCode ?? 0, headers: pairs.sort(), body: Buffer.concat(chunks).toString('latin1') })
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

const ports = new Map<string, number>()
const closers: (() => Promise<void>)[] = []

function listen(server: Server | ServerType): Promise<number> {
  return new Promise((resolve) => {
    if (server.listening) return resolve((server.address() as AddressInfo).port)
    server.once('listening', () => resolve((server.address() as AddressInfo).port))
  })
}

beforeAll(async () => {
  const fastify = await fastifyApp()
  await fastify.listen({ port: 0, host: '127.0.0.1' })
  ports.set('fastify', (fastify.server.address() as AddressInfo).port)
  closers.push(() => fastify.close())
  const expressServer = createServer(expressApp()).listen(0, '127.0.0.1')
  ports.set('express', await listen(expressServer))
  const honoServer = serve({ fetch: honoApp().fetch, port: 0, hostname: '127.0.0.1' })
  ports.set('hono', await listen(honoServer))
  const node = nodeServer().listen(0, '127.0.0.1')
  ports.set('node', await listen(node))
  for (const server of [expressServer, honoServer, node]) {
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())))
  }
})

afterAll(async () => {
  await Promise.all(closers.map((close) => close()))
})

/** The same request on the four adapters: every answer must equal Fastify's. */
async function onAll(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const answers = new Map<string, Answer>()
  for (const [framework, port] of ports) answers.set(framework, await send(port, method, path, headers, body))
  const reference = answers.get('fastify')
  if (reference === undefined) throw new Error('no Fastify answer')
  for (const [framework, answer] of answers) expect({ framework, ...answer }).toEqual({ framework, ...reference })
  return reference
}

describe('middleware style answers byte-identically on fastify, express, hono and node:http', () => {
  it('a refusal carries the challenge and the Vary of the consulted schemes', async () => {
    const answer = await onAll('GET', '/private/', {})
    expect(answer.status).toBe(401)
    expect(answer.headers).toEqual(['content-length: 58', 'content-type: application/json', 'vary: X-User', 'www-authenticate: Custom realm="api"'])
    expect(answer.body).toBe('{"detail":"Authentication credentials were not provided."}')
  })

  it('a pass runs the handler with the context, and its answer carries Vary', async () => {
    const answer = await onAll('GET', '/private/', { 'x-user': 'ada' })
    expect(answer.status).toBe(200)
    expect(answer.headers).toContain('vary: X-User')
    expect(answer.body).toBe('{"user":"ada"}')
  })

  it('an ApiError thrown by the handler is rendered by the route, with Vary', async () => {
    const answer = await onAll('POST', '/invalid/', { 'x-user': 'ada' })
    expect(answer.status).toBe(400)
    expect(answer.headers).toContain('vary: X-User')
    expect(answer.body).toBe('{"title":["This field is required."]}')
  })

  it('any other handler error is a logged 500 that never shows the error text', async () => {
    logged.length = 0
    const answer = await onAll('POST', '/crash/', {})
    expect(answer.status).toBe(500)
    expect(answer.headers).toContain('vary: X-User')
    expect(answer.body).toBe('{"detail":"A server error occurred."}')
    expect(logged).toHaveLength(4)
    expect(logged.every((line) => line.includes('hunter2'))).toBe(true)
  })

  it('a malformed body read by the handler is DRF\'s 400, with Vary', async () => {
    const answer = await onAll('POST', '/echo/', { 'content-type': 'application/json' }, '{"title": ')
    expect(answer.status).toBe(400)
    expect(answer.headers).toContain('vary: X-User')
    expect(answer.body).toBe('{"detail":"JSON parse error - Expecting value: line 1 column 11 (char 10)"}')
  })

  it('a malformed body on a route outside the views (Fastify: outside the plugin, its own JSON parser) is DRF\'s 400, with Vary', async () => {
    const answer = await onAll('POST', '/own/', { 'content-type': 'application/json' }, '{"title": ')
    expect(answer.status).toBe(400)
    expect(answer.headers).toEqual(['content-length: 75', 'content-type: application/json', 'vary: X-User'])
    expect(answer.body).toBe('{"detail":"JSON parse error - Expecting value: line 1 column 11 (char 10)"}')
    const trailing = await onAll('POST', '/own/', { 'content-type': 'application/json; charset=utf-8' }, '{"a": 1} x')
    expect(trailing.body).toBe('{"detail":"JSON parse error - Extra data: line 1 column 10 (char 9)"}')
  })

  it('outside the views too, a refusal comes before the malformed body (DRF parses only when the view reads it)', async () => {
    const answer = await onAll('POST', '/ownPrivate/', { 'content-type': 'application/json' }, '{"title": ')
    expect(answer.status).toBe(401)
    expect(answer.body).toBe('{"detail":"Authentication credentials were not provided."}')
    const passed = await onAll('POST', '/ownPrivate/', { 'content-type': 'application/json', 'x-user': 'ada' }, '{"title": ')
    expect(passed.status).toBe(400)
    expect(passed.body).toBe('{"detail":"JSON parse error - Expecting value: line 1 column 11 (char 10)"}')
  })

  it('a well-formed body on a route outside the views reaches the handler', async () => {
    const answer = await onAll('POST', '/own/', { 'content-type': 'application/json' }, '{"title": "Dune", "n": [1, 2.5]}')
    expect(answer.status).toBe(200)
    expect(answer.body).toBe('{"received":{"title":"Dune","n":[1,2.5]}}')
  })

  it('a well-formed body reaches the handler', async () => {
    const answer = await onAll('POST', '/echo/', { 'content-type': 'application/json' }, '{"title": "Dune"}')
    expect(answer.status).toBe(200)
    expect(answer.body).toBe('{"received":{"title":"Dune"}}')
  })
})
