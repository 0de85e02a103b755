/**
 * Object permissions on every adapter, in both styles: `api.view` routes mounted with
 * `mountRoutes` (a handler calling `checkObjectPermissions` with the object it loaded) and the
 * app's own handlers behind `policies()` calling it with `requestContext(…)`. The answers must
 * be DRF's (403 with the permission's message, 401 for an anonymous write, 404 before any
 * object check) and byte-identical on Fastify, Express, Hono and node:http; a path parameter
 * an `int` converter refuses is no route, answered as each framework answers an unknown URL.
 * Real servers over real sockets.
 */
import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { serve, type ServerType } from '@hono/node-server'
import express from 'express'
import Fastify, { type FastifyInstance } from 'fastify'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  checkObjectPermissions,
  createApi,
  IsAdminUser,
  IsAuthenticatedOrReadOnly,
  IsOwnerOrReadOnly,
  jsonResponse,
  NotFound,
  or,
  route,
  type ApiResponse,
  type Api,
  type AuthenticationScheme,
  type PolicyOptions,
  type RequestContext,
} from 'drf-gatehouse'
import * as ex from 'drf-gatehouse/express'
import * as fa from 'drf-gatehouse/fastify'
import * as ho from 'drf-gatehouse/hono'
import * as no from 'drf-gatehouse/node'

const USERS: Readonly<Record<string, { id: number; isStaff: boolean }>> = { alice: { id: 1, isStaff: false }, bob: { id: 2, isStaff: false }, admin: { id: 4, isStaff: true } }

/** `X-User: name` identifies a known user; refusals of anonymous requests are 401s (`Custom`). */
const headerScheme: AuthenticationScheme = {
  vary: ['X-User'],
  async authenticate(req) {
    const name = req.headers.get('x-user')
    const known = name === null ? undefined : USERS[name]
    if (name === null || known === undefined) return null
    return { user: { id: known.id, username: name, isActive: true, isStaff: known.isStaff, isAuthenticated: true }, auth: null }
  },
  authenticateHeader: () => 'Custom realm="api"',
}

interface Note {
  readonly id: number
  readonly owner: number
}
const NOTES: ReadonlyMap<string, Note> = new Map([
  ['1', { id: 1, owner: 1 }],
  ['2', { id: 2, owner: 2 }],
])

const api: Api = createApi({ authentication: [headerScheme] })
const isOwner = new IsOwnerOrReadOnly<Note>({ owner: (note) => note.owner, message: 'Only the owner may change this note.' })
/** The tutorial's pair: a request half (anonymous writes are 401) and the object half. */
const ownerOnly: PolicyOptions = { permissions: [new IsAuthenticatedOrReadOnly(), isOwner] }
/** DRF's `IsAdminUser | IsOwnerOrReadOnly`: staff may change any note; composed permissions carry no message. */
const staffOrOwner: PolicyOptions = { permissions: [or(new IsAdminUser(), isOwner)] }

/** The handler, the same in both styles: load (404), check the object, answer. */
async function noteHandler(ctx: RequestContext, id: string): Promise<ApiResponse> {
  const note = NOTES.get(String(Number(id)))
  if (note === undefined) throw new NotFound()
  await checkObjectPermissions(ctx, note)
  return jsonResponse(200, { id: note.id, method: ctx.request.method })
}
const view = (options: PolicyOptions) => {
  const handler = async (ctx: RequestContext): Promise<ApiResponse> => noteHandler(ctx, ctx.params['id'] ?? '')
  return api.view({ name: 'Note', ...options, formats: ['json'], handlers: { GET: handler, PUT: handler } })
}
const ROUTES = [route('/notes/:id/', view(ownerOnly), { params: { id: 'int' } }), route('/either/:id/', view(staffOrOwner), { params: { id: 'int' } })]
const OWN: readonly (readonly [string, PolicyOptions])[] = [
  ['/own/notes/', ownerOnly],
  ['/own/either/', staffOrOwner],
]

async function fastifyApp(): Promise<FastifyInstance> {
  const app = Fastify()
  await fa.mountRoutes(app, ROUTES)
  await app.register(fa.gatehouse, {
    api,
    plugin: async (scope) => {
      for (const [path, options] of OWN) {
        scope.route<{ Params: { id: string } }>({
          method: ['GET', 'PUT'],
          url: `${path}:id/`,
          preHandler: fa.policies(api, options),
          handler: async (request, reply) => fa.sendApiResponse(reply, await noteHandler(fa.requestContext(request), request.params.id)),
        })
      }
    },
  })
  return app
}

function expressApp(): express.Express {
  const app = express()
  app.disable('x-powered-by')
  app.disable('etag')
  ex.mountRoutes(app, ROUTES)
  for (const [path, options] of OWN) {
    app.all(`${path}:id/`, ex.policies(api, options), (req, res, next) => {
      noteHandler(ex.requestContext(req), String(req.params['id'])).then((response) => ex.sendApiResponse(res, response), next)
    })
  }
  app.use(ex.errorHandler(api))
  return app
}

function honoApp(): Hono<ho.GatehouseEnv> {
  const app = new Hono<ho.GatehouseEnv>()
  ho.mountRoutes(app, ROUTES)
  for (const [path, options] of OWN) {
    app.on(['GET', 'PUT'], `${path}:id/`, ho.policies(api, options), async (c) => ho.sendApiResponse(c, await noteHandler(ho.requestContext(c), c.req.param('id') ?? '')))
  }
  app.onError(ho.errorHandler(api))
  return app
}

function nodeServer(): Server {
  const views = no.router(ROUTES)
  const own = OWN.map(([path, options]) => [path, no.policies(api, options)(async (req, res) => {
    const id = (req.url ?? '').slice(path.length, -1)
    no.sendApiResponse(res, await noteHandler(no.requestContext(req), id))
  })] as const)
  const onError = no.errorHandler(api)
  return createServer((req, res) => {
    const found = own.find(([path]) => (req.url ?? '').startsWith(path))
    if (found === undefined) return void views(req, res)
    found[1](req, res).catch((error: unknown) => onError(error, req, res))
  })
}

interface Answer {
  readonly status: number
  readonly headers: readonly string[]
  readonly body: string
}
const TRANSPORT = new Set(['date', 'connection', 'keep-alive'])

function send(port: number, method: string, path: string, headers: Record<string, string>): Promise<Answer> {
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
    req.end()
  })
}

const ports = new Map<string, number>()
const closers: (() => Promise<void>)[] = []

function listening(server: Server | ServerType): Promise<number> {
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
  ports.set('express', await listening(expressServer))
  const honoServer = serve({ fetch: honoApp().fetch, port: 0, hostname: '127.0.0.1' })
  ports.set('hono', await listening(honoServer))
  const node = nodeServer().listen(0, '127.0.0.1')
  ports.set('node', await listening(node))
  for (const server of [expressServer, honoServer, node]) closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())))
})

afterAll(async () => {
  await Promise.all(closers.map((close) => close()))
})

/** The four adapters' answers to one request. */
async function onEach(method: string, path: string, headers: Record<string, string> = {}): Promise<Map<string, Answer>> {
  const answers = new Map<string, Answer>()
  for (const [framework, port] of ports) answers.set(framework, await send(port, method, path, headers))
  return answers
}

/** The same answer on every adapter; `Allow` is left out (own handlers list no methods). */
async function onAll(method: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown; challenge: string | null }> {
  const answers = await onEach(method, path, headers)
  const shown = [...answers].map(([framework, a]) => ({
    framework,
    status: a.status,
    headers: a.headers.filter((h) => !h.startsWith('allow:')),
    body: a.body,
  }))
  const reference = shown[0]
  if (reference === undefined) throw new Error('no answer')
  for (const answer of shown) expect(answer).toEqual({ ...reference, framework: answer.framework })
  const challenge = reference.headers.find((h) => h.startsWith('www-authenticate: '))?.slice('www-authenticate: '.length) ?? null
  return { status: reference.status, body: JSON.parse(reference.body) as unknown, challenge }
}

const NOT_OWNER = { detail: 'Only the owner may change this note.' }
const DEFAULT_403 = { detail: 'You do not have permission to perform this action.' }
const NOT_PROVIDED = { detail: 'Authentication credentials were not provided.' }

describe.each(['/notes/', '/own/notes/'])('IsAuthenticatedOrReadOnly + IsOwnerOrReadOnly at %s on every adapter', (base) => {
  it.each<[string, string, Record<string, string>, number, unknown]>([
    ['anyone reads', 'GET', {}, 200, { id: 1, method: 'GET' }],
    ['the owner writes', 'PUT', { 'x-user': 'alice' }, 200, { id: 1, method: 'PUT' }],
    ["another user may not: 403 with the permission's message", 'PUT', { 'x-user': 'bob' }, 403, NOT_OWNER],
    ['staff is just another user here', 'PUT', { 'x-user': 'admin' }, 403, NOT_OWNER],
  ])('%s', async (_name, method, headers, status, body) => {
    expect(await onAll(method, `${base}1/`, headers)).toMatchObject({ status, body })
  })

  it('an anonymous write is refused by the request half first: 401 with the challenge, found or not', async () => {
    for (const id of ['1', '9']) expect(await onAll('PUT', `${base}${id}/`)).toEqual({ status: 401, body: NOT_PROVIDED, challenge: 'Custom realm="api"' })
  })

  it('an unknown object is 404 before any object check', async () => {
    expect(await onAll('PUT', `${base}9/`, { 'x-user': 'bob' })).toMatchObject({ status: 404, body: { detail: 'Not found.' } })
  })
})

describe.each(['/either/', '/own/either/'])('or(IsAdminUser, IsOwnerOrReadOnly) at %s (DRF 3.14 OR for objects)', (base) => {
  it.each<[string, string, Record<string, string>, number, unknown]>([
    ['staff passes both halves of IsAdminUser', 'PUT', { 'x-user': 'admin' }, 200, { id: 1, method: 'PUT' }],
    ['the owner passes both halves of IsOwnerOrReadOnly', 'PUT', { 'x-user': 'alice' }, 200, { id: 1, method: 'PUT' }],
    ["another user passes no operand on both halves: 403, DRF's default message", 'PUT', { 'x-user': 'bob' }, 403, DEFAULT_403],
    ['anonymous reads', 'GET', {}, 200, { id: 1, method: 'GET' }],
  ])('%s', async (_name, method, headers, status, body) => {
    expect(await onAll(method, `${base}1/`, headers)).toMatchObject({ status, body })
  })

  it('an anonymous write passes the request half and is refused on the object: 401', async () => {
    expect(await onAll('PUT', `${base}1/`)).toEqual({ status: 401, body: NOT_PROVIDED, challenge: 'Custom realm="api"' })
  })
})

describe("a value the route's int converter refuses is no route", () => {
  it('answers on each adapter exactly as that adapter answers an unknown URL', async () => {
    const unknown = await onEach('GET', '/nothing/here/')
    for (const path of ['/notes/abc/', '/notes/-1/', '/notes/1.0/', '/either/%20/']) {
      const answers = await onEach('GET', path, { 'x-user': 'alice' })
      for (const [framework, answer] of answers) {
        const expected = unknown.get(framework)
        if (expected === undefined) throw new Error(framework)
        // Express's own 404 page names the path it could not route.
        const body = answer.body.replace(path, '/nothing/here/')
        expect({ framework, path, ...answer, body, headers: answer.headers.filter((h) => !h.startsWith('content-length')) }).toEqual({ framework, path, ...expected, headers: expected.headers.filter((h) => !h.startsWith('content-length')) })
        expect(answer.status).toBe(404)
      }
    }
  })

  it('while a numeric id reaches the view (leading zeros and escapes as Django reads them)', async () => {
    for (const path of ['/notes/001/', '/notes/%31/']) {
      for (const [framework, answer] of await onEach('GET', path)) expect({ framework, path, status: answer.status, body: answer.body }).toEqual({ framework, path, status: 200, body: '{"id":1,"method":"GET"}' })
    }
  })
})
