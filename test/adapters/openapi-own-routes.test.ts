/**
 * OpenAPI for the own-routes style: an app whose routes are its own handlers behind
 * `policies(api, { openApi })` (beside one DRF-style view) gets one document on every
 * adapter: found on the app by `openApiRoutes(app)` on Fastify, Express and Hono, declared
 * with `policyRoute` on node:http. Each document validates, describes the routes' security,
 * statuses and pagination envelope, is the same on all four, is served by `openApiView`
 * over a real socket, and the real answers of each app are what it documents.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { serve, type ServerType } from '@hono/node-server'
import swagger from '@fastify/swagger'
import { Validator } from '@seriousme/openapi-schema-validator'
import express from 'express'
import Fastify, { type FastifyInstance } from 'fastify'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  AnonRateThrottle,
  ArrayPageSource,
  createApi,
  IsAuthenticated,
  jsonResponse,
  MemoryThrottleStore,
  namedSchema,
  NotFound,
  openApiDocument,
  openApiView,
  PageNumberPagination,
  paginatedList,
  policyRoute,
  route,
  TokenAuthentication,
  type ApiResponse,
  type DescribedRoute,
  type RequestContext,
} from 'gatehouse'
import * as ex from 'gatehouse/express'
import * as fa from 'gatehouse/fastify'
import * as ho from 'gatehouse/hono'
import * as no from 'gatehouse/node'
import { FakeTokenStore, FakeUserStore } from '../helpers/fake-auth-stores.js'
import { OpenApiAnswers } from '../helpers/openapi-answers.js'

type Json = Record<string, unknown>
const at = (value: unknown, ...keys: string[]): unknown => {
  let current = value
  for (const key of keys) current = (current as Json | undefined)?.[key]
  return current
}

const TOKEN = 'a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1'
const INFO = { title: 'Books', version: '1.0.0' }
const BOOK = namedSchema('Book', { type: 'object', required: ['id', 'title'], properties: { id: { type: 'integer' }, title: { type: 'string' } } })
const BOOK_INPUT = namedSchema('BookInput', { type: 'object', required: ['title'], properties: { title: { type: 'string' } } })
const BOOKS = Array.from({ length: 7 }, (_, i) => ({ id: i + 1, title: `Book ${i + 1}` }))

/** A fresh API per app: its throttle counts apart. */
function makeApi() {
  return createApi({
    authentication: [new TokenAuthentication({ tokens: new FakeTokenStore([[TOKEN, 1]]), users: new FakeUserStore() })],
    pagination: new PageNumberPagination({ pageSize: 3 }),
    allowedHosts: ['127.0.0.1', 'localhost'],
  })
}
type TestApi = ReturnType<typeof makeApi>

/** The own routes' policies, the same on every adapter. */
function policyOptions(api: TestApi) {
  return {
    list: { name: 'Book List', openApi: { list: { item: BOOK } } },
    create: { name: 'Book Create', permissions: [new IsAuthenticated()], openApi: { status: 201, requestBody: BOOK_INPUT, response: BOOK } },
    detail: {
      permissions: [new IsAuthenticated()],
      throttles: [new AnonRateThrottle({ store: new MemoryThrottleStore(), rate: '1000/min' })],
      openApi: { response: BOOK, errors: [404] },
    },
    // A route with policies and nothing said about it: still an operation, its answer any JSON.
    ping: {},
    api,
  }
}

/** The own handlers, the same on every adapter. */
const handlers = {
  list: (ctx: RequestContext): Promise<ApiResponse> => paginatedList(ctx, ctx.settings.pagination, new ArrayPageSource(BOOKS), (b) => b),
  create: async (ctx: RequestContext): Promise<ApiResponse> => {
    const body = (await ctx.request.body()) as { title?: unknown } | null
    return jsonResponse(201, { id: 99, title: String(body?.title ?? '') })
  },
  detail: async (ctx: RequestContext): Promise<ApiResponse> => {
    const book = BOOKS.find((b) => String(b.id) === ctx.params['id'])
    if (book === undefined) throw new NotFound()
    return jsonResponse(200, book)
  },
  ping: async (): Promise<ApiResponse> => jsonResponse(200, { pong: true }),
}

/** The DRF-style view beside them, and the document's own view. */
function views(api: TestApi, routes: () => readonly DescribedRoute[]) {
  return [
    route('/api/whoami/', api.view({ name: 'Who Am I', handlers: { GET: async (ctx) => jsonResponse(200, { username: ctx.user.username }) } })),
    route('/api/openapi.json', api.view(openApiView({ routes, info: INFO }))),
  ]
}

interface Running {
  readonly baseUrl: string
  /** The document `openApiDocument` writes for the app's routes. */
  readonly document: () => Json
  close(): Promise<void>
}

const listen = (server: Server): Promise<string> =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)))
const closeServer = (server: Server | ServerType): Promise<void> => new Promise((resolve) => server.close(() => resolve()))

async function fastifyApp(): Promise<Running> {
  const api = makeApi()
  const o = policyOptions(api)
  const app: FastifyInstance = Fastify()
  // Before any route, as @fastify/swagger: Fastify lists routes only as they are added.
  fa.openApiRoutes(app)
  await app.register(fa.drfErrors, { api })
  const send = (name: keyof typeof handlers) => async (request: Parameters<typeof fa.requestContext>[0], reply: Parameters<typeof fa.sendApiResponse>[0]) =>
    fa.sendApiResponse(reply, await handlers[name](fa.requestContext(request)))
  app.get('/api/books/', { preHandler: fa.policies(api, o.list) }, send('list'))
  app.post('/api/books/', { preHandler: fa.policies(api, o.create) }, send('create'))
  app.get('/api/books/:id/', { preHandler: fa.policies(api, o.detail) }, send('detail'))
  app.get('/api/ping/', { preHandler: fa.policies(api, o.ping) }, send('ping'))
  await fa.mountRoutes(app, views(api, () => fa.openApiRoutes(app)))
  await app.listen({ port: 0, host: '127.0.0.1' })
  return {
    baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    document: () => openApiDocument(fa.openApiRoutes(app), { info: INFO }) as unknown as Json,
    close: () => app.close(),
  }
}

async function expressApp(): Promise<Running> {
  const api = makeApi()
  const o = policyOptions(api)
  const app = express()
  const router = express.Router({ strict: true })
  const send = (name: keyof typeof handlers): express.RequestHandler => (req, res, next) => {
    handlers[name](ex.requestContext(req)).then((response) => ex.sendApiResponse(res, response), next)
  }
  router.get('/books/', ex.policies(api, o.list), send('list'))
  router.post('/books/', ex.policies(api, o.create), send('create'))
  router.get('/books/:id/', ex.policies(api, o.detail), send('detail'))
  router.get('/ping/', ex.policies(api, o.ping), send('ping'))
  // Mounted under a path: the document writes the full paths.
  app.use('/api', router)
  ex.mountRoutes(app, views(api, () => ex.openApiRoutes(app)))
  app.use(ex.errorHandler(api))
  const server = createServer(app)
  const baseUrl = await listen(server)
  return { baseUrl, document: () => openApiDocument(ex.openApiRoutes(app), { info: INFO }) as unknown as Json, close: () => closeServer(server) }
}

async function honoApp(): Promise<Running> {
  const api = makeApi()
  const o = policyOptions(api)
  const app = new Hono<ho.GatehouseEnv>({ strict: true })
  const books = new Hono<ho.GatehouseEnv>({ strict: true })
  const send = (name: keyof typeof handlers) => async (c: Parameters<typeof ho.requestContext>[0]) => ho.sendApiResponse(c, await handlers[name](ho.requestContext(c)))
  books.get('/books/', ho.policies(api, o.list), send('list'))
  books.post('/books/', ho.policies(api, o.create), send('create'))
  // A parameter with a pattern: written `{id}` in the document.
  books.get('/books/:id{[0-9]+}/', ho.policies(api, o.detail), send('detail'))
  books.get('/ping/', ho.policies(api, o.ping), send('ping'))
  books.onError(ho.errorHandler(api))
  app.route('/api', books)
  ho.mountRoutes(app, views(api, () => ho.openApiRoutes(app)))
  app.onError(ho.errorHandler(api))
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' })
  await new Promise<void>((resolve) => server.once('listening', () => resolve()))
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    document: () => openApiDocument(ho.openApiRoutes(app), { info: INFO }) as unknown as Json,
    close: () => closeServer(server),
  }
}

async function nodeApp(): Promise<Running> {
  const api = makeApi()
  const o = policyOptions(api)
  const wrap = (name: keyof typeof handlers, options: object) =>
    no.policies(api, options)(async (req, res) => no.writeResponse(res, await handlers[name](no.requestContext(req))))
  const list = wrap('list', o.list)
  const create = wrap('create', o.create)
  // node:http's policies() fills no params: the handler reads its id from the path.
  const detail = no.policies(api, o.detail)(async (req, res) => {
    const book = BOOKS.find((b) => `/api/books/${b.id}/` === req.url)
    no.writeResponse(res, book === undefined ? jsonResponse(404, { detail: 'Not found.' }) : jsonResponse(200, book))
  })
  const ping = wrap('ping', o.ping)
  // node:http has no router: the app declares its own routes to the document.
  const own: DescribedRoute[] = [
    policyRoute('GET', '/api/books/', list),
    policyRoute('POST', '/api/books/', create),
    policyRoute('GET', '/api/books/:id/', detail),
    policyRoute('GET', '/api/ping/', ping),
  ]
  const viewRoutes = views(api, () => all)
  const all: DescribedRoute[] = [...own, ...viewRoutes]
  const drf = no.router(viewRoutes)
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/'
    if (path === '/api/books/') return void (req.method === 'POST' ? create : list)(req, res)
    if (path === '/api/ping/') return void ping(req, res)
    if (/^\/api\/books\/[^/]+\/$/.test(path)) return void detail(req, res)
    return void drf(req, res)
  })
  const baseUrl = await listen(server)
  return { baseUrl, document: () => openApiDocument(all, { info: INFO }) as unknown as Json, close: () => closeServer(server) }
}

const FRAMEWORKS = { fastify: fastifyApp, express: expressApp, hono: honoApp, node: nodeApp } as const

/** The operations of a document: `METHOD path`. */
const operationsOf = (doc: Json): string[] =>
  Object.entries(doc['paths'] as Record<string, Json>).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`)).sort()

const documents = new Map<string, Json>()

for (const [framework, start] of Object.entries(FRAMEWORKS)) {
  describe(`own routes behind policies() on ${framework}`, () => {
    let app: Running
    let doc: Json
    beforeAll(async () => {
      app = await start()
      doc = app.document()
      documents.set(framework, doc)
    })
    afterAll(async () => {
      await app?.close()
    })

    it('produce a valid OpenAPI 3.1 document listing every own route beside the views', async () => {
      const result = await new Validator().validate(doc)
      expect(result.errors).toBeUndefined()
      expect(result.valid).toBe(true)
      expect(operationsOf(doc)).toEqual(['GET /api/books/', 'GET /api/books/{id}/', 'GET /api/openapi.json', 'GET /api/ping/', 'GET /api/whoami/', 'POST /api/books/'])
    })

    it("describe each route's security from its policies", () => {
      const paths = doc['paths'] as Json
      // AllowAny (the default): the token, or nothing.
      expect(at(paths, '/api/books/', 'get', 'security')).toEqual([{ tokenAuth: [] }, {}])
      // IsAuthenticated: the token only.
      expect(at(paths, '/api/books/', 'post', 'security')).toEqual([{ tokenAuth: [] }])
      expect(at(paths, '/api/books/{id}/', 'get', 'security')).toEqual([{ tokenAuth: [] }])
      expect(at(doc, 'components', 'securitySchemes', 'tokenAuth')).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'Authorization' }))
    })

    it('describe the statuses their policies imply (401, 403, 429) and their own (201, 404, a body\'s 400/415)', () => {
      const statuses = (path: string, method: string): string[] => Object.keys(at(doc, 'paths', path, method, 'responses') as Json).sort()
      expect(statuses('/api/books/', 'get')).toEqual(['200', '401', '403', '404'])
      expect(statuses('/api/books/', 'post')).toEqual(['201', '400', '401', '403', '415'])
      expect(statuses('/api/books/{id}/', 'get')).toEqual(['200', '401', '403', '404', '429'])
      expect(statuses('/api/ping/', 'get')).toEqual(['200', '401', '403'])
      expect(at(doc, 'paths', '/api/books/{id}/', 'get', 'responses', '429', 'headers', 'Retry-After')).toBeDefined()
      expect(at(doc, 'paths', '/api/books/{id}/', 'get', 'responses', '401', 'headers', 'WWW-Authenticate')).toBeDefined()
      // The view beside them keeps a view's statuses (format negotiation: 404, 406).
      expect(Object.keys(at(doc, 'paths', '/api/whoami/', 'get', 'responses') as Json).sort()).toEqual(['200', '401', '403', '404', '406'])
    })

    it('describe the paginated envelope, the pagination parameters, bodies, names and path parameters', () => {
      const list = at(doc, 'paths', '/api/books/', 'get') as Json
      expect(list['operationId']).toBe('listBookList')
      expect(list['summary']).toBe('Book List')
      expect((list['parameters'] as Json[]).map((p) => p['name'])).toEqual(['page'])
      expect(at(list, 'responses', '200', 'content', 'application/json', 'schema')).toEqual({ $ref: '#/components/schemas/BookPage' })
      expect(Object.keys(at(doc, 'components', 'schemas', 'BookPage', 'properties') as Json)).toEqual(['count', 'next', 'previous', 'results'])
      expect(at(doc, 'paths', '/api/books/', 'post', 'requestBody')).toEqual({ required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/BookInput' } } } })
      expect(at(doc, 'paths', '/api/books/', 'post', 'responses', '201', 'content', 'application/json', 'schema')).toEqual({ $ref: '#/components/schemas/Book' })
      expect(at(doc, 'paths', '/api/books/{id}/', 'get', 'parameters')).toEqual([{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }])
      expect(at(doc, 'paths', '/api/books/{id}/', 'get', 'operationId')).toBe('retrieveApiBooksId')
    })

    it('serves the same document through openApiView, and every answer of the app is one it documents', async () => {
      const served = (await (await fetch(`${app.baseUrl}/api/openapi.json`)).json()) as Json
      expect(served).toEqual(doc)
      const checker = new OpenApiAnswers(doc)
      const auth = { Authorization: `Token ${TOKEN}` }
      const calls: [string, string, Record<string, string>, string | undefined, number][] = [
        ['GET', '/api/books/', {}, undefined, 200],
        ['GET', '/api/books/?page=3', {}, undefined, 200],
        ['GET', '/api/books/?page=9', {}, undefined, 404],
        ['GET', '/api/books/', { Authorization: 'Token nope' }, undefined, 401],
        ['POST', '/api/books/', {}, '{"title":"New"}', 401],
        ['POST', '/api/books/', auth, '{"title":"New"}', 201],
        ['GET', '/api/books/2/', {}, undefined, 401],
        ['GET', '/api/books/2/', auth, undefined, 200],
        ['GET', '/api/books/42/', auth, undefined, 404],
        ['GET', '/api/ping/', {}, undefined, 200],
        ['GET', '/api/whoami/', auth, undefined, 200],
      ]
      const problems: string[] = []
      for (const [method, target, headers, body, status] of calls) {
        const res = await fetch(`${app.baseUrl}${target}`, { method, headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) }, ...(body === undefined ? {} : { body }) })
        const text = await res.text()
        expect(`${method} ${target} ${res.status}`).toBe(`${method} ${target} ${status}`)
        const path = target.split('?')[0] ?? target
        problems.push(...checker.problems({ method, path, status: res.status, headers: res.headers, body: text }).map((p) => `${method} ${target}: ${p}`))
      }
      expect(problems).toEqual([])
    })
  })
}

describe('own routes on the four adapters', () => {
  it('get the same document on each', () => {
    expect(documents.size).toBe(4)
    const fastify = documents.get('fastify')
    for (const [framework, doc] of documents) expect({ framework, doc }).toEqual({ framework, doc: fastify })
  })
})

describe('@fastify/swagger with openApiRoutes(app)', () => {
  let app: FastifyInstance | null = null
  afterAll(async () => {
    await app?.close()
  })

  it("describes a route's policies() as gatehouse's document does, its Fastify schema filling in the body and the answer", async () => {
    const api = makeApi()
    const o = policyOptions(api)
    app = Fastify()
    await app.register(swagger, { openapi: { openapi: '3.1.0', info: INFO } })
    fa.openApiRoutes(app)
    app.get('/api/books/', { preHandler: fa.policies(api, o.list) }, async () => ({}))
    app.post(
      '/api/books/',
      { preHandler: fa.policies(api, { permissions: [new IsAuthenticated()] }), schema: { body: BOOK_INPUT, response: { 201: BOOK } } },
      async () => ({}),
    )
    app.get('/health', async () => ({ ok: true }))
    await app.ready()
    const doc = app.swagger() as unknown as Json
    const result = await new Validator().validate(doc)
    expect(result.errors).toBeUndefined()
    expect(at(doc, 'paths', '/api/books/', 'get', 'security')).toEqual([{ tokenAuth: [] }, {}])
    expect(at(doc, 'paths', '/api/books/', 'get', 'responses', '200', 'content', 'application/json', 'schema')).toEqual({ $ref: '#/components/schemas/BookPage' })
    expect(at(doc, 'paths', '/api/books/', 'post', 'security')).toEqual([{ tokenAuth: [] }])
    expect(Object.keys(at(doc, 'paths', '/api/books/', 'post', 'responses') as Json).sort()).toEqual(['201', '400', '401', '403', '415'])
    expect(at(doc, 'paths', '/api/books/', 'post', 'requestBody', 'content', 'application/json', 'schema')).toEqual({ $ref: '#/components/schemas/BookInput' })
    // A route without policies keeps @fastify/swagger's own description.
    expect(at(doc, 'paths', '/health', 'get', 'responses', '200')).toBeDefined()
  })
})
