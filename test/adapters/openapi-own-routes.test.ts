/**
 * OpenAPI for the own-routes style: an app whose routes are its own handlers behind
 * `policies(api, { openApi })` (beside one DRF-style view) gets one document on every
 * adapter: found on the app by `openApiRoutes(app)` on Fastify, Express and Hono, declared
 * with `policyRoute` on node:http. Each document validates, describes the routes' security,
 * statuses and pagination envelope, is the same on all four, is served by `openApiView`
 * over a real socket, and the real answers of each app are what it documents.
 */
import { createRequire } from 'node:module'
import swagger from '@fastify/swagger'
import { Validator } from '@seriousme/openapi-schema-validator'
import express from 'express'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IsAuthenticated } from 'drf-gatehouse'
import * as ex from 'drf-gatehouse/express'
import * as fa from 'drf-gatehouse/fastify'
import { OpenApiAnswers } from '../helpers/openapi-answers.js'
import { BOOK, BOOK_INPUT, FILTERS, INFO, makeApi, ORDERING, OWN_ROUTES_APPS, policyOptions, TOKEN, type Running } from '../helpers/own-routes-apps.js'

type Json = Record<string, unknown>
const at = (value: unknown, ...keys: string[]): unknown => {
  let current = value
  for (const key of keys) current = (current as Json | undefined)?.[key]
  return current
}

/** The operations of a document: `METHOD path`. */
const operationsOf = (doc: Json): string[] =>
  Object.entries(doc['paths'] as Record<string, Json>).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`)).sort()

const documents = new Map<string, Json>()

for (const [framework, start] of Object.entries(OWN_ROUTES_APPS)) {
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
      expect(operationsOf(doc)).toEqual(['GET /api/books/', 'GET /api/books/{id}/', 'GET /api/openapi.json', 'GET /api/ping/', 'GET /api/shelf/', 'GET /api/whoami/', 'POST /api/books/'])
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
      // Its filters answer 400 for a value that does not read.
      expect(statuses('/api/books/', 'get')).toEqual(['200', '400', '401', '403', '404'])
      expect(statuses('/api/shelf/', 'get')).toEqual(['200', '401', '403'])
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
      expect((list['parameters'] as Json[]).map((p) => p['name'])).toEqual(['page', ...FILTERS.names, 'search', 'ordering'])
      expect(at(list, 'responses', '200', 'content', 'application/json', 'schema')).toEqual({ $ref: '#/components/schemas/BookPage' })
      expect(Object.keys(at(doc, 'components', 'schemas', 'BookPage', 'properties') as Json)).toEqual(['count', 'next', 'previous', 'results'])
      expect(at(doc, 'paths', '/api/books/', 'post', 'requestBody')).toEqual({ required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/BookInput' } } } })
      expect(at(doc, 'paths', '/api/books/', 'post', 'responses', '201', 'content', 'application/json', 'schema')).toEqual({ $ref: '#/components/schemas/Book' })
      expect(at(doc, 'paths', '/api/books/{id}/', 'get', 'parameters')).toEqual([{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }])
      expect(at(doc, 'paths', '/api/books/{id}/', 'get', 'operationId')).toBe('retrieveApiBooksId')
    })

    it('describe the query parameters of the paginator and ordering filter given to policies(), none added by hand (issue 41)', async () => {
      const names = (path: string): unknown[] => ((at(doc, 'paths', path, 'get', 'parameters') ?? []) as Json[]).map((p) => p['name'])
      // `openApi.list` names the route's paginator; `filters`, `search` and `ordering` add theirs, in DRF's order.
      expect(names('/api/books/')).toEqual(['page', 'id', 'id__in', 'id__gte', 'title__icontains', 'genre', 'published__gte', 'published__lt', 'sequel__isnull', 'search', 'ordering'])
      // Nothing said in `openApi`: the paginator and the ordering filter given to policies() still describe theirs.
      expect(names('/api/shelf/')).toEqual(['limit', 'offset', 'ordering'])
      expect(at(doc, 'paths', '/api/shelf/', 'get', 'parameters')).toContainEqual(ORDERING.openApiParameter())
      // A route without them lists none.
      expect(at(doc, 'paths', '/api/ping/', 'get', 'parameters')).toBeUndefined()
      // And the parameters do what the document says, over HTTP.
      const page = (await (await fetch(`${app.baseUrl}/api/shelf/?ordering=-id&limit=2&offset=1`)).json()) as { results: { id: number }[]; count: number }
      expect({ count: page.count, ids: page.results.map((b) => b.id) }).toEqual({ count: 7, ids: [6, 5] })
    })

    it('describe every filter given to policies() with its type, and the search as DRF does (issue 42)', async () => {
      const parameters = at(doc, 'paths', '/api/books/', 'get', 'parameters') as Json[]
      const byName = new Map(parameters.map((p) => [p['name'], p]))
      const query = (description: string, schema: Json): Json => ({ in: 'query', required: false, description, schema })
      expect(Object.fromEntries([...byName].filter(([name]) => name !== 'page' && name !== 'ordering'))).toEqual({
        id: { name: 'id', ...query('ID', { type: 'integer' }) },
        // Comma-separated, as django-filter reads it: one string (a generated client would repeat an array's parameter).
        id__in: { name: 'id__in', ...query('ID is in. Multiple values may be separated by commas.', { type: 'string' }) },
        id__gte: { name: 'id__gte', ...query('ID is greater than or equal to', { type: 'integer' }) },
        title__icontains: { name: 'title__icontains', ...query('Title contains', { type: 'string' }) },
        genre: { name: 'genre', ...query('Genre', { type: 'string', enum: ['novel', 'essay'] }) },
        published__gte: { name: 'published__gte', ...query('Published is greater than or equal to', { type: 'string', format: 'date-time' }) },
        published__lt: { name: 'published__lt', ...query('Published is less than', { type: 'string', format: 'date-time' }) },
        sequel__isnull: { name: 'sequel__isnull', ...query('Sequel is null', { type: 'boolean' }) },
        // DRF's own `SearchFilter.get_schema_operation_parameters`, word for word.
        search: { name: 'search', ...query('A search term.', { type: 'string' }) },
      })
      expect(parameters.filter((p) => FILTERS.names.includes(String(p['name'])))).toEqual(FILTERS.openApiParameters())
      // A documented 400: the route's filters may refuse a value, answered as the document says (below).
      const bad = await fetch(`${app.baseUrl}/api/books/?id=x`)
      expect([bad.status, await bad.text()]).toEqual([400, '{"id":["Enter a number."]}'])
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
        ['GET', '/api/books/?ordering=-title', {}, undefined, 200],
        ['GET', '/api/books/?genre=essay&id__in=2,4&published__lt=2020-02-01&sequel__isnull=false&search=book', {}, undefined, 200],
        ['GET', '/api/books/?id__gte=x&genre=poem', {}, undefined, 400],
        ['GET', '/api/shelf/?ordering=title&limit=3', {}, undefined, 200],
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
    // The filters and search given to policies() too, typed.
    expect(((at(doc, 'paths', '/api/books/', 'get', 'parameters') ?? []) as Json[]).filter((p) => FILTERS.names.includes(String(p['name'])))).toEqual(FILTERS.openApiParameters())
    expect(at(doc, 'paths', '/api/books/', 'get', 'responses', '400')).toBeDefined()
    expect(at(doc, 'paths', '/api/books/', 'post', 'security')).toEqual([{ tokenAuth: [] }])
    expect(Object.keys(at(doc, 'paths', '/api/books/', 'post', 'responses') as Json).sort()).toEqual(['201', '400', '401', '403', '415'])
    expect(at(doc, 'paths', '/api/books/', 'post', 'requestBody', 'content', 'application/json', 'schema')).toEqual({ $ref: '#/components/schemas/BookInput' })
    // A route without policies keeps @fastify/swagger's own description.
    expect(at(doc, 'paths', '/health', 'get', 'responses', '200')).toBeDefined()
  })
})

describe('openApiRoutes(app) on Fastify, whatever the order', () => {
  const apps: FastifyInstance[] = []
  afterAll(async () => {
    for (const app of apps) await app.close()
  })

  it('throws a ConfigurationError when first called after routes were registered, never a document missing them (issue 41)', async () => {
    const api = makeApi()
    const app = Fastify()
    apps.push(app)
    app.get('/api/books/', { preHandler: fa.policies(api, policyOptions(api).list) }, async () => ({}))
    expect(() => fa.openApiRoutes(app)).toThrow(/openApiRoutes\(app\) must first be called before the app's routes are registered/)
    // And after the app started, its routes registered in a plugin.
    const started = Fastify()
    apps.push(started)
    await started.register(async (scope) => {
      scope.get('/shelf/', { preHandler: fa.policies(api, policyOptions(api).shelf) }, async () => ({}))
    })
    await started.ready()
    expect(() => fa.openApiRoutes(started)).toThrow(/must first be called before/)
  })

  it('finds the routes registered before a later call once it was first called (plugins included)', async () => {
    const api = makeApi()
    const app = Fastify()
    apps.push(app)
    fa.openApiRoutes(app)
    app.get('/api/books/', { preHandler: fa.policies(api, policyOptions(api).list) }, async () => ({}))
    await app.register(async (scope) => {
      scope.get('/shelf/', { preHandler: fa.policies(api, policyOptions(api).shelf) }, async () => ({}))
    }, { prefix: '/api' })
    await app.ready()
    expect(fa.openApiRoutes(app).map((r) => ('method' in r ? `${r.method} ${r.path}` : r.path))).toEqual(['GET /api/books/', 'GET /api/shelf/'])
  })
})

describe('openApiRoutes on Express 4 and 5', () => {
  // `express4` is the npm alias of Express 4; it ships no types, so it is typed as Express 5's factory.
  const express4 = createRequire(import.meta.url)('express4') as typeof express
  for (const [name, factory] of [['Express 4', express4], ['Express 5', express]] as const) {
    it(`${name}: finds routes in routers mounted at a path, and refuses to guess the path of one mounted at a pattern`, () => {
      const api = makeApi()
      const app = factory()
      const books = factory.Router({ strict: true })
      const noop: express.RequestHandler = (_req, res) => void res.end()
      books.get('/books/:id/', ex.policies(api, { name: 'Book' }), noop)
      const inner = factory.Router()
      inner.post('/items/', ex.policies(api), noop)
      books.use('/shop', inner)
      // Middleware on every method describes no operation.
      books.use(ex.policies(api))
      app.use('/api', books)
      app.get('/top/', ex.policies(api), noop)
      expect(ex.openApiRoutes(app).map((r) => ('method' in r ? `${r.method} ${r.path}` : r.path))).toEqual(['GET /api/books/:id/', 'POST /api/shop/items/', 'GET /top/'])

      const patterned = factory()
      patterned.use(/^\/v[0-9]+/, books)
      expect(() => ex.openApiRoutes(patterned)).toThrow(/openApiRoutes\(router, \{ prefix \}\)/)
      expect(ex.openApiRoutes(books, { prefix: '/v1' }).map((r) => r.path)).toEqual(['/v1/books/:id/', '/v1/shop/items/'])
    })
  }
})
