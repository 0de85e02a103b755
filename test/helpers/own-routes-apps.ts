/**
 * One own-routes app, the same on the four adapters: the app's own handlers behind
 * `policies(api, { openApi })` (a paginated list, a create with a body, a detail with a
 * throttle, a route with nothing said, a list given only its paginator and ordering filter;
 * the paginated list filters and searches with django-filter's and DRF's parameters),
 * a DRF-style view beside them, and the document served
 * by `openApiView`. Found by `openApiRoutes(app)` on Fastify, Express and Hono (on node:http the
 * views of its router), the own routes declared with
 * `policyRoute` on node:http. Used by test/adapters/openapi-own-routes*.test.ts.
 */
import { afterAll, beforeAll } from 'vitest'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { serve, type ServerType } from '@hono/node-server'
import express from 'express'
import Fastify, { type FastifyInstance } from 'fastify'
import { Hono } from 'hono'
import {
  AnonRateThrottle,
  ArrayPageSource,
  createApi,
  FilterSet,
  IsAuthenticated,
  jsonResponse,
  LimitOffsetPagination,
  MemoryThrottleStore,
  namedSchema,
  NotFound,
  openApiDocument,
  openApiView,
  OrderingFilter,
  PageNumberPagination,
  paginatedList,
  policyRoute,
  route,
  SearchFilter,
  TokenAuthentication,
  type ApiResponse,
  type DescribedRoute,
  type RequestContext,
} from 'drf-gatehouse'
import * as ex from 'drf-gatehouse/express'
import * as fa from 'drf-gatehouse/fastify'
import * as ho from 'drf-gatehouse/hono'
import * as no from 'drf-gatehouse/node'
import { FakeTokenStore, FakeUserStore } from './fake-auth-stores.js'

type Json = Record<string, unknown>

export const TOKEN = 'a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1'
export const INFO = { title: 'Books', version: '1.0.0' }
export const BOOK = namedSchema('Book', { type: 'object', required: ['id', 'title'], properties: { id: { type: 'integer' }, title: { type: 'string' } } })
export const BOOK_INPUT = namedSchema('BookInput', { type: 'object', required: ['title'], properties: { title: { type: 'string' } } })
export const BOOKS = Array.from({ length: 7 }, (_, i) => ({ id: i + 1, title: `Book ${i + 1}` }))

/** A fresh API per app: its throttle counts apart. */
export function makeApi() {
  return createApi({
    authentication: [new TokenAuthentication({ tokens: new FakeTokenStore([[TOKEN, 1]]), users: new FakeUserStore() })],
    pagination: new PageNumberPagination({ pageSize: 3 }),
    allowedHosts: ['127.0.0.1', 'localhost'],
  })
}
export type TestApi = ReturnType<typeof makeApi>

/** The ordering filter of the own list routes: its `?ordering=` is described from `policies({ ordering })`. */
export const ORDERING = new OrderingFilter({ fields: ['id', 'title'], ordering: 'id' })

/**
 * The rows behind the book list: a book's fields (what it shows) and the fields its filters
 * read: a genre (a choice), a publication time, the id of its sequel (the last has none).
 */
export const SHELVED = BOOKS.map((b) => ({ ...b, genre: b.id % 2 === 1 ? 'novel' : 'essay', published: new Date(Date.UTC(2020, 0, b.id)), sequel: b.id < 7 ? b.id + 1 : null }))
type Shelved = (typeof SHELVED)[number]

/** The book list's django-filter filters: one of each type; given to `policies({ filters })` and `paginatedList(…, { filters })`. */
export const FILTERS = new FilterSet({
  id: { type: 'integer', lookups: ['exact', 'in', 'gte'] },
  title: { type: 'text', lookups: ['icontains'] },
  genre: { type: 'choice', choices: ['novel', 'essay'], lookups: ['exact'] },
  published: { type: 'datetime', lookups: ['gte', 'lt'] },
  sequel: { type: 'integer', lookups: ['isnull'] },
})
/** DRF's `SearchFilter` over the title (contains) and the genre (exact). */
export const SEARCH = new SearchFilter({ fields: ['title', '=genre'] })

/** The own routes' policies, the same on every adapter. */
export function policyOptions(api: TestApi) {
  return {
    list: { name: 'Book List', ordering: ORDERING, filters: FILTERS, search: SEARCH, openApi: { list: { item: BOOK } } },
    // Nothing said but its own paginator and ordering filter: their query parameters are still described.
    shelf: { pagination: new LimitOffsetPagination({ defaultLimit: 2 }), ordering: ORDERING },
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
  list: (ctx: RequestContext): Promise<ApiResponse> =>
    paginatedList(ctx, ctx.settings.pagination, new ArrayPageSource(SHELVED), (b: Shelved) => ({ id: b.id, title: b.title }), { ordering: ORDERING, filters: FILTERS, search: SEARCH }),
  shelf: (ctx: RequestContext): Promise<ApiResponse> => paginatedList(ctx, ctx.settings.pagination, new ArrayPageSource(BOOKS), (b) => b, { ordering: ORDERING }),
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

export interface Running {
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
  app.get('/api/shelf/', { preHandler: fa.policies(api, o.shelf) }, send('shelf'))
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
  app.disable('x-powered-by')
  const router = express.Router({ strict: true })
  const send = (name: keyof typeof handlers): express.RequestHandler => (req, res, next) => {
    handlers[name](ex.requestContext(req)).then((response) => ex.sendApiResponse(res, response), next)
  }
  router.get('/books/', ex.policies(api, o.list), send('list'))
  router.post('/books/', ex.policies(api, o.create), send('create'))
  router.get('/books/:id/', ex.policies(api, o.detail), send('detail'))
  router.get('/ping/', ex.policies(api, o.ping), send('ping'))
  router.get('/shelf/', ex.policies(api, o.shelf), send('shelf'))
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
  books.get('/shelf/', ho.policies(api, o.shelf), send('shelf'))
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
    no.policies(api, options)(async (req, res) => no.sendApiResponse(res, await handlers[name](no.requestContext(req))))
  const list = wrap('list', o.list)
  const create = wrap('create', o.create)
  // node:http has no router: the route's pattern fills `requestContext(req).params`.
  const detail = wrap('detail', { ...o.detail, path: '/api/books/:id/' })
  const ping = wrap('ping', o.ping)
  const shelf = wrap('shelf', o.shelf)
  // node:http has no router: the app declares its own routes to the document.
  const own: DescribedRoute[] = [
    policyRoute('GET', '/api/books/', list),
    policyRoute('POST', '/api/books/', create),
    policyRoute('GET', '/api/books/:id/', detail),
    policyRoute('GET', '/api/ping/', ping),
    policyRoute('GET', '/api/shelf/', shelf),
  ]
  const drf = no.router(views(api, () => all))
  // The views its router serves, read from the router (its own table).
  const all: DescribedRoute[] = [...own, ...no.openApiRoutes(drf)]
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/'
    if (path === '/api/books/') return void (req.method === 'POST' ? create : list)(req, res)
    if (path === '/api/ping/') return void ping(req, res)
    if (path === '/api/shelf/') return void shelf(req, res)
    if (/^\/api\/books\/[^/]+\/$/.test(path)) return void detail(req, res)
    return void drf(req, res)
  })
  const baseUrl = await listen(server)
  return { baseUrl, document: () => openApiDocument(all, { info: INFO }) as unknown as Json, close: () => closeServer(server) }
}

/** Each adapter's app, started on a real socket. */
export const OWN_ROUTES_APPS = { fastify: fastifyApp, express: expressApp, hono: honoApp, node: nodeApp } as const


/** The four adapters' apps, in the order the suites compare them (Fastify first). */
export const OWN_ROUTES_ADAPTERS = ['fastify', 'express', 'hono', 'node'] as const
export type OwnRoutesAdapter = (typeof OWN_ROUTES_ADAPTERS)[number]

/** Starts the four apps before the file's tests and closes them after; the map fills in `beforeAll`. */
export function useOwnRoutesApps(): ReadonlyMap<OwnRoutesAdapter, Running> {
  const running = new Map<OwnRoutesAdapter, Running>()
  beforeAll(async () => {
    for (const adapter of OWN_ROUTES_ADAPTERS) running.set(adapter, await OWN_ROUTES_APPS[adapter]())
  }, 60_000)
  afterAll(async () => {
    await Promise.all([...running.values()].map((r) => r.close()))
  })
  return running
}
