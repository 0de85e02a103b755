/**
 * @fastify/swagger, registered by a Fastify app as its users do, describes the views the
 * `mountRoutes` plugin mounts (through their routes' `config.swaggerTransform`), and
 * those views answer exactly as without it: no Fastify validation, no 400 of its own.
 */
import swagger from '@fastify/swagger'
import { Validator } from '@seriousme/openapi-schema-validator'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { BasicAuthentication } from '../../authentication/basic-authentication.js'
import { SessionAuthentication } from '../../authentication/session-authentication.js'
import { TokenAuthentication } from '../../authentication/token-authentication.js'
import { createApi } from '../../core/api.js'
import { namedSchema } from '../../core/named-schema.js'
import { route } from '../../core/route.js'
import { ArrayPageSource } from '../../pagination/array-page-source.js'
import { CursorPagination } from '../../pagination/cursor-pagination.js'
import { listHandler } from '../../pagination/list-handler.js'
import { PageNumberPagination } from '../../pagination/page-number-pagination.js'
import { IsAuthenticatedOrReadOnly } from '../../permissions/is-authenticated-or-read-only.js'
import { jsonResponse } from '../../core/api-response.js'
import { IsAuthenticated } from '../../permissions/is-authenticated.js'
import { gatehouse, mountRoutes } from './index.js'

type Json = Record<string, unknown>
const at = (value: unknown, ...keys: string[]): unknown => {
  let current = value
  for (const key of keys) current = (current as Json | undefined)?.[key]
  return current
}

const books = Array.from({ length: 12 }, (_, i) => ({ id: i + 1, title: `Book ${i + 1}`, created: `2024-01-01T00:${String(i).padStart(2, '0')}:00Z` }))
const BOOK = namedSchema('Book', { type: 'object', required: ['id', 'title'], properties: { id: { type: 'integer' }, title: { type: 'string' } } })
const nobody = { authenticate: async () => null, findById: async () => null, get: async () => null }

function gatehouseRoutes(): ReturnType<typeof route>[] {
  const api = createApi({
    authentication: [
      new TokenAuthentication({ tokens: { findByKey: async () => null }, users: nobody }),
      new SessionAuthentication({ sessions: nobody, users: nobody }),
      new BasicAuthentication({ users: nobody }),
    ],
    permissions: [new IsAuthenticatedOrReadOnly()],
    pagination: new PageNumberPagination({ pageSize: 5, pageSizeQueryParam: 'page_size' }),
  })
  const list = listHandler({ source: () => new ArrayPageSource(books), serialize: (b) => ({ id: b.id, title: b.title }), itemSchema: BOOK })
  return [
    route('/books/', api.view({ name: 'Book List', handlers: { GET: list, POST: async () => jsonResponse(201, {}) } })),
    // The same envelope twice: one `BookPage` component, in 3.0 as in 3.1.
    route('/books-again/', api.view({ name: 'Book List Again', handlers: { GET: list } })),
    route('/books/:id/', api.view({ name: 'Book Detail', handlers: { GET: async (ctx) => jsonResponse(200, { id: ctx.params['id'] }) } })),
    route(
      '/feed/',
      api.view({
        name: 'Feed',
        pagination: new CursorPagination({ ordering: '-created', pageSize: 5, secret: 'a-test-secret-of-32-characters!!' }),
        handlers: { GET: listHandler({ source: () => new ArrayPageSource(books), serialize: (b) => b, itemSchema: BOOK }) },
      }),
    ),
  ]
}

let app: FastifyInstance | null = null
afterEach(async () => {
  await app?.close()
  app = null
})

/** A Fastify app with @fastify/swagger, a route of its own, and gatehouse's views under `/api`. */
async function buildApp(mode: '3.1.0' | 'openapi-default' | 'swagger-2.0'): Promise<FastifyInstance> {
  const instance = Fastify()
  const info = { title: 'Books', version: '1.0.0' }
  await instance.register(
    swagger,
    mode === 'swagger-2.0' ? { swagger: { info } } : { openapi: mode === '3.1.0' ? { openapi: mode, info } : { info } },
  )
  instance.get('/health', { schema: { response: { 200: { type: 'object', properties: { ok: { type: 'boolean' } } } } } }, async () => ({ ok: true }))
  await mountRoutes(instance, gatehouseRoutes(), { prefix: '/api' })
  await instance.ready()
  return instance
}

describe('@fastify/swagger with mountRoutes', () => {
  it('describes the views (security, pagination, envelopes) in a valid OpenAPI 3.1 document, beside the app\'s own routes', async () => {
    app = await buildApp('3.1.0')
    const doc = app.swagger() as unknown as Json
    const result = await new Validator().validate(doc)
    expect(result.errors).toBeUndefined()
    expect(result.valid).toBe(true)

    const paths = doc['paths'] as Record<string, Json>
    expect(Object.keys(paths).sort()).toEqual(['/api/books-again/', '/api/books/', '/api/books/{id}/', '/api/feed/', '/health'])
    // Only the handlers' methods, not every method Fastify routes.
    expect(Object.keys(paths['/api/books/'] ?? {}).sort()).toEqual(['get', 'post'])
    expect(Object.keys(paths['/api/books/{id}/'] ?? {})).toEqual(['get'])
    expect(at(paths, '/api/books/', 'get', 'security')).toEqual([{ tokenAuth: [] }, { cookieAuth: [] }, { basicAuth: [] }, {}])
    expect(at(paths, '/api/books/', 'post', 'security')).toEqual([{ tokenAuth: [] }, { cookieAuth: [], csrfToken: [] }, { basicAuth: [] }])
    expect((at(paths, '/api/books/', 'get', 'parameters') as Json[]).map((p) => p['name'])).toEqual(['page', 'page_size'])
    expect((at(paths, '/api/feed/', 'get', 'parameters') as Json[]).map((p) => p['name'])).toEqual(['cursor'])
    expect(at(paths, '/api/books/{id}/', 'get', 'parameters')).toEqual([{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }])
    expect(at(paths, '/api/books/', 'get', 'responses', '200', 'content', 'application/json', 'schema')).toEqual({ $ref: '#/components/schemas/BookPage' })
    const envelope = at(doc, 'components', 'schemas', 'BookPage') as Json
    expect(Object.keys(envelope['properties'] as Json)).toEqual(['count', 'next', 'previous', 'results'])
    expect(at(envelope, 'properties', 'results', 'items')).toEqual({ $ref: '#/components/schemas/Book' })
    expect(at(doc, 'components', 'schemas', 'Book')).toEqual(JSON.parse(JSON.stringify(BOOK)))
    expect(Object.keys(at(doc, 'components', 'securitySchemes') as Json).sort()).toEqual(['basicAuth', 'cookieAuth', 'csrfToken', 'tokenAuth'])
    // The app's own route keeps @fastify/swagger's description.
    expect(at(paths, '/health', 'get', 'responses', '200')).toBeDefined()
  })

  it('writes 3.0 keywords (`nullable`) when @fastify/swagger writes OpenAPI 3.0 (its default)', async () => {
    app = await buildApp('openapi-default')
    const doc = app.swagger() as unknown as Json
    expect(String(doc['openapi'])).toMatch(/^3\.0\./)
    const result = await new Validator().validate(doc)
    expect(result.errors).toBeUndefined()
    expect(result.valid).toBe(true)
    expect(at(doc, 'paths', '/api/books/', 'get', 'responses', '200', 'content', 'application/json', 'schema')).toEqual({ $ref: '#/components/schemas/BookPage' })
    expect(at(doc, 'paths', '/api/books-again/', 'get', 'responses', '200', 'content', 'application/json', 'schema')).toEqual({ $ref: '#/components/schemas/BookPage' })
    const next = at(doc, 'components', 'schemas', 'BookPage', 'properties', 'next')
    expect(next).toEqual({ nullable: true, type: 'string', format: 'uri', example: 'http://api.example.org/accounts/?page=4' })
    expect(Object.keys(at(doc, 'components', 'schemas') as Json).sort()).toEqual(['Book', 'BookCursorPage', 'BookPage', 'ErrorDetail'])
  })

  it('leaves the views out of a Swagger 2.0 document (only OpenAPI 3 is described)', async () => {
    app = await buildApp('swagger-2.0')
    const doc = app.swagger() as unknown as Json
    expect(doc['swagger']).toBe('2.0')
    expect(Object.keys(doc['paths'] as Json)).toEqual(['/health'])
  })

  it('leaves the views\' answers unchanged: a bad page is DRF\'s 404, a bad body the view\'s own answer, never a Fastify 400', async () => {
    app = await buildApp('3.1.0')
    app.swagger()
    const address = await app.listen({ port: 0, host: '127.0.0.1' })
    const bad = await fetch(`${address}/api/books/?page=x`)
    expect(bad.status).toBe(404)
    expect(await bad.json()).toEqual({ detail: 'Invalid page.' })
    const big = await fetch(`${address}/api/books/?page_size=abc&page=2`)
    expect(big.status).toBe(200)
    expect(((await big.json()) as Json)['count']).toBe(12)
    const post = await fetch(`${address}/api/books/`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"title": 1' })
    // Anonymous POST: the permission answers first (IsAuthenticatedOrReadOnly, Token first: 401).
    expect(post.status).toBe(401)
    expect(await post.json()).toEqual({ detail: 'Authentication credentials were not provided.' })
  })

  it('adds the guard\'s security to routes of the middleware-style plugin, keeping @fastify/swagger\'s own description of them', async () => {
    const instance = Fastify()
    app = instance
    await instance.register(swagger, { openapi: { openapi: '3.1.0', info: { title: 'Books', version: '1.0.0' } } })
    const api = createApi({
      authentication: [new BasicAuthentication({ users: nobody }), new SessionAuthentication({ sessions: nobody, users: nobody })],
      permissions: [new IsAuthenticated()],
    })
    await instance.register(gatehouse, {
      api,
      plugin: async (scope) => {
        scope.get('/me', { config: { gatehouse: {} }, schema: { querystring: { type: 'object', properties: { verbose: { type: 'boolean' } } } } }, async () => ({ ok: true }))
        scope.post('/notes', { config: { gatehouse: {} } }, async () => ({ ok: true }))
        scope.get('/open', async () => ({ ok: true }))
      },
    })
    await instance.ready()
    const doc = instance.swagger() as unknown as Json
    const result = await new Validator().validate(doc)
    expect(result.errors).toBeUndefined()
    expect(result.valid).toBe(true)
    expect(at(doc, 'paths', '/me', 'get', 'security')).toEqual([{ basicAuth: [] }, { cookieAuth: [] }])
    expect(at(doc, 'paths', '/notes', 'post', 'security')).toEqual([{ basicAuth: [] }, { cookieAuth: [], csrfToken: [] }])
    expect(at(doc, 'paths', '/open', 'get', 'security')).toBeUndefined()
    // @fastify/swagger's own description (the app's querystring schema) is kept.
    expect((at(doc, 'paths', '/me', 'get', 'parameters') as Json[]).map((p) => p['name'])).toEqual(['verbose'])
    expect(Object.keys(at(doc, 'components', 'securitySchemes') as Json).sort()).toEqual(['basicAuth', 'cookieAuth', 'csrfToken'])
    // The guard still runs: anonymous is 401 with Basic's challenge.
    const address = await instance.listen({ port: 0, host: '127.0.0.1' })
    const res = await fetch(`${address}/me`)
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="api"')
  })
})
