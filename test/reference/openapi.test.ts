/**
 * The reference API's `GET /api/openapi.json`, fetched over a real socket from the reference
 * server on SQLite and PostgreSQL, validated as an OpenAPI 3.1 document by
 * @seriousme/openapi-schema-validator, and checked against what the routes really do:
 * their schemes, their pagination parameters and envelopes, their answers' shapes.
 */
import { Validator } from '@seriousme/openapi-schema-validator'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { referenceRoutes } from '../../examples/reference-api/routes/index.js'
import { BACKENDS } from '../helpers/databases.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { backendUnavailable, unavailable } from '../helpers/requirements.js'

type Json = Record<string, unknown>
const BOB_TOKEN = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'

/** The document text each backend served, compared at the end. */
const served = new Map<string, string>()

const at = (value: unknown, ...keys: string[]): unknown => {
  let current = value
  for (const key of keys) current = (current as Json | undefined)?.[key]
  return current
}
const paramNames = (op: unknown): string[] => ((at(op, 'parameters') as Json[] | undefined) ?? []).map((p) => String(p['name']))
const successSchema = (op: unknown, status = '200'): Json => at(op, 'responses', status, 'content', 'application/json', 'schema') as Json

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`GET /api/openapi.json (${backend.name})`, () => {
    let server: RunningReference
    let doc: Json
    let paths: Record<string, Json>

    beforeAll(async () => {
      server = await startReference(await backend.create())
      const res = await fetch(`${server.baseUrl}/api/openapi.json`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('application/json')
      const text = await res.text()
      served.set(backend.name, text)
      doc = JSON.parse(text) as Json
      paths = doc['paths'] as Record<string, Json>
    })
    afterAll(async () => {
      await server?.close()
    })

    it('is a valid OpenAPI 3.1 document', async () => {
      expect(doc['openapi']).toBe('3.1.0')
      const result = await new Validator().validate(doc)
      expect(result.errors).toBeUndefined()
      expect(result.valid).toBe(true)
    })

    it('lists no text/html, a server and a license (redocly\'s no-empty-servers, info-license)', () => {
      expect(JSON.stringify(doc)).not.toContain('text/html')
      expect(doc['servers']).toEqual([{ url: '/' }])
      expect(at(doc, 'info', 'license')).toEqual({ name: 'MIT', identifier: 'MIT' })
    })

    it('describes the detailed token view\'s extra fields and the named token id as an integer', () => {
      expect(successSchema(at(paths, '/api/auth/token/detailed/', 'post'))).toMatchObject({
        required: ['token', 'user_id', 'username'],
        properties: { token: { type: 'string' }, user_id: { type: ['integer', 'string'] }, username: { type: 'string' } },
        additionalProperties: false,
      })
      expect(at(paths, '/api/auth/tokens/{id}/', 'delete', 'parameters')).toEqual([
        { name: 'id', in: 'path', required: true, description: "The token's `id`.", schema: { type: 'integer', minimum: 1 } },
      ])
      expect(Object.keys(at(paths, '/api/articles/', 'post', 'responses') as Json)).toEqual(['201', '400', '401', '403', '404', '406', '415'])
      expect(at(doc, 'components', 'responses', 'MethodNotAllowed')).toBeDefined()
    })

    it('describes every route of the reference API, and only those, with each handler method', () => {
      // The administration pages (HTML for staff, under /admin/) are not part of the API's document.
      const routes = referenceRoutes(server.ref).filter((r) => !r.path.startsWith('/admin/'))
      expect(routes.length).toBeLessThan(referenceRoutes(server.ref).length)
      const openApiPath = (path: string): string => path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}')
      expect(Object.keys(paths).sort()).toEqual(routes.map((r) => openApiPath(r.path)).sort())
      for (const r of routes) {
        const methods = Object.keys(r.view.declared.handlers).map((m) => m.toLowerCase()).sort()
        expect(Object.keys(paths[openApiPath(r.path)] ?? {}).sort(), r.path).toEqual(methods)
      }
      // operationIds are unique.
      const ids = Object.values(paths).flatMap((item) => Object.values(item).map((op) => at(op, 'operationId')))
      expect(new Set(ids).size).toBe(ids.length)
    })

    it('declares the security schemes of the built-in and custom schemes', () => {
      expect(at(doc, 'components', 'securitySchemes')).toEqual({
        basicAuth: { type: 'http', scheme: 'basic' },
        bearerAuth: { type: 'http', scheme: 'bearer' },
        tokenAuth: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'Authorization' }),
        cookieAuth: expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'sessionid' }),
        csrfToken: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-CSRFToken' }),
        remoteUserAuth: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Remote-User' }),
        xUsernameAuth: { type: 'apiKey', in: 'header', name: 'X-Username' },
      })
    })

    it('lists each route\'s schemes in order, `{}` only where anonymous requests pass, CSRF with the session on unsafe methods', () => {
      expect(at(paths, '/api/schemes/bearer/', 'get', 'security')).toEqual([{ bearerAuth: [] }])
      expect(at(paths, '/api/schemes/token/', 'get', 'security')).toEqual([{ tokenAuth: [] }])
      expect(at(paths, '/api/schemes/session/', 'get', 'security')).toEqual([{ cookieAuth: [] }])
      expect(at(paths, '/api/schemes/session/', 'post', 'security')).toEqual([{ cookieAuth: [], csrfToken: [] }])
      expect(at(paths, '/api/schemes/basic-session/', 'get', 'security')).toEqual([{ basicAuth: [] }, { cookieAuth: [] }])
      expect(at(paths, '/api/private/', 'get', 'security')).toEqual([{ tokenAuth: [] }, { cookieAuth: [] }, { basicAuth: [] }])
      expect(at(paths, '/api/whoami/', 'get', 'security')).toEqual([{ tokenAuth: [] }, { cookieAuth: [] }, { basicAuth: [] }, {}])
      // IsAuthenticatedOrReadOnly: anyone reads, only the authenticated create.
      expect(at(paths, '/api/articles/', 'get', 'security')).toContainEqual({})
      expect(at(paths, '/api/articles/', 'post', 'security')).toEqual([{ tokenAuth: [] }, { cookieAuth: [], csrfToken: [] }, { basicAuth: [] }])
      // The document's own view authenticates like the others; anyone may read it.
      expect(at(paths, '/api/openapi.json', 'get', 'security')).toEqual([{ tokenAuth: [] }, { cookieAuth: [] }, { basicAuth: [] }, {}])
      // The first scheme decides 401 (a challenge) or 403.
      expect(at(paths, '/api/schemes/basic-session/', 'get', 'responses', '401', 'headers', 'WWW-Authenticate')).toBeDefined()
      expect(at(paths, '/api/schemes/session-basic/', 'get', 'responses', '401')).toBeUndefined()
      expect(at(paths, '/api/schemes/session-basic/', 'get', 'responses', '403')).toBeDefined()
      expect(at(paths, '/api/auth/token/throttled/', 'post', 'responses', '429', 'headers', 'Retry-After')).toBeDefined()
      // Failed-login throttling is off here: nothing else answers 429.
      expect(at(paths, '/api/auth/token/', 'post', 'responses', '429')).toBeUndefined()
      expect(at(paths, '/api/whoami/', 'get', 'responses', '429')).toBeUndefined()
    })

    it('gives each list its paginator\'s query parameters and the author filter, and only those', () => {
      expect(paramNames(at(paths, '/api/articles/', 'get'))).toEqual(['page', 'author'])
      expect(paramNames(at(paths, '/api/articles/pages/', 'get'))).toEqual(['page', 'page_size', 'author'])
      expect(paramNames(at(paths, '/api/articles/offset/', 'get'))).toEqual(['limit', 'offset', 'author'])
      expect(paramNames(at(paths, '/api/articles/cursor/', 'get'))).toEqual(['cursor', 'page_size', 'author'])
      expect(paramNames(at(paths, '/api/articles/cursor-score/', 'get'))).toEqual(['cursor', 'author'])
      expect(paramNames(at(paths, '/api/articles/manual/', 'get'))).toEqual(['page', 'author'])
      expect(paramNames(at(paths, '/api/articles/all/', 'get'))).toEqual(['author'])
      expect(paramNames(at(paths, '/api/articles/ordered/', 'get'))).toEqual(['page', 'page_size', 'ordering', 'author'])
      expect(paramNames(at(paths, '/api/articles/cursor-ordered/', 'get'))).toEqual(['cursor', 'page_size', 'ordering', 'author'])
      // The ordering parameter lists its allowed values: a comma-separated list of fields, each optionally descending.
      const ordering = (at(paths, '/api/articles/cursor-ordered/', 'get', 'parameters') as Json[])[2]
      expect(ordering).toMatchObject({
        name: 'ordering',
        in: 'query',
        required: false,
        style: 'form',
        explode: false,
        schema: { type: 'array', items: { type: 'string', enum: ['created', '-created', 'score', '-score', 'id', '-id'] } },
      })
      expect(String((ordering as Record<string, unknown>)['description'])).toMatch(/^Which field to use when ordering the results\. .*Default: -created\.$/)
      expect(paramNames(at(paths, '/api/articles/', 'post'))).toEqual([])
      expect((at(paths, '/api/articles/', 'get', 'parameters') as Json[])[0]).toEqual({
        name: 'page',
        required: false,
        in: 'query',
        description: 'A page number within the paginated result set.',
        schema: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string', enum: ['last'] }] },
      })
      const pages = at(paths, '/api/articles/pages/', 'get', 'parameters') as Json[]
      expect(at(pages[0], 'schema', 'anyOf', '1', 'enum')).toEqual(['last', 'end'])
      expect(pages[1]?.['schema']).toEqual({ type: 'integer', minimum: 1, maximum: 25 })
      expect(at((at(paths, '/api/articles/offset/', 'get', 'parameters') as Json[])[0], 'schema', 'maximum')).toBe(25)
      expect((at(paths, '/api/articles/cursor/', 'get', 'parameters') as Json[])[0]).toMatchObject({ description: 'The pagination cursor value.', schema: { type: 'string' } })
    })

    it('describes each paginated envelope as the routes answer it', async () => {
      const named = (schema: Json): Json => at(doc, 'components', 'schemas', String(schema['$ref']).replace('#/components/schemas/', '')) as Json
      expect(successSchema(at(paths, '/api/articles/', 'get'))).toEqual({ $ref: '#/components/schemas/ArticlePage' })
      expect(successSchema(at(paths, '/api/articles/offset/', 'get'))).toEqual({ $ref: '#/components/schemas/ArticleOffsetPage' })
      expect(successSchema(at(paths, '/api/articles/cursor/', 'get'))).toEqual({ $ref: '#/components/schemas/ArticleCursorPage' })
      const pageEnvelope = named(successSchema(at(paths, '/api/articles/', 'get')))
      expect(pageEnvelope['required']).toEqual(['count', 'next', 'previous', 'results'])
      expect(at(pageEnvelope, 'properties', 'count')).toEqual({ type: 'integer', example: 123 })
      expect(at(pageEnvelope, 'properties', 'next')).toEqual({ type: ['string', 'null'], format: 'uri', example: 'http://api.example.org/accounts/?page=4' })
      expect(at(named(successSchema(at(paths, '/api/articles/cursor/', 'get'))), 'properties', 'count')).toBeUndefined()
      expect(successSchema(at(paths, '/api/articles/all/', 'get'))['type']).toBe('array')
      const linkHeader = at(paths, '/api/articles/link-header/', 'get', 'responses', '200') as Json
      expect(Object.keys(linkHeader['headers'] as Json)).toEqual(['Link', 'X-Total-Count'])

      // The live answers have exactly the documented keys, and items the documented fields.
      expect(at(pageEnvelope, 'properties', 'results', 'items')).toEqual({ $ref: '#/components/schemas/Article' })
      const item = at(doc, 'components', 'schemas', 'Article') as Json
      for (const path of ['/api/articles/', '/api/articles/offset/', '/api/articles/cursor/', '/api/articles/nested/', '/api/articles/manual/']) {
        const own = successSchema(at(paths, path, 'get'))
        const schema = own['$ref'] === undefined ? own : named(own)
        const body = (await (await fetch(`${server.baseUrl}${path}`)).json()) as Json
        expect(Object.keys(body).sort(), path).toEqual(Object.keys(schema['properties'] as Json).sort())
        expect(Object.keys((body['results'] as Json[])[0] ?? {}).sort(), path).toEqual([...(item['required'] as string[])].sort())
      }
      const nested = successSchema(at(paths, '/api/articles/nested/', 'get'))
      expect(Object.keys(at(nested, 'properties', 'links', 'properties') as Json)).toEqual(['next', 'previous'])
    })

    it('describes errors as the routes answer them: a bad page is a documented 404 `{"detail"}`', async () => {
      expect(at(paths, '/api/articles/', 'get', 'responses', '404', 'content', 'application/json', 'schema')).toEqual({ $ref: '#/components/schemas/ErrorDetail' })
      expect(at(doc, 'components', 'schemas', 'ErrorDetail')).toEqual({ type: 'object', required: ['detail'], properties: { detail: { type: 'string' } } })
      // No `Error` to shadow a language's own.
      expect(at(doc, 'components', 'schemas', 'Error')).toBeUndefined()
      const res = await fetch(`${server.baseUrl}/api/articles/?page=x`)
      expect(res.status).toBe(404)
      expect(await res.json()).toEqual({ detail: 'Invalid page.' })
    })

    it('describes the article POST: its body, its 201 and its validation errors', async () => {
      const post = at(paths, '/api/articles/', 'post')
      expect(at(post, 'requestBody', 'content', 'application/json', 'schema', 'required')).toEqual(['title', 'score'])
      expect(Object.keys(at(post, 'requestBody', 'content') as Json)).toEqual(['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'])
      expect(successSchema(post, '201')).toEqual({ $ref: '#/components/schemas/Article' })
      const created = at(doc, 'components', 'schemas', 'Article') as Json
      const res = await fetch(`${server.baseUrl}/api/articles/`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Token ${BOB_TOKEN}` },
        body: JSON.stringify({ title: 'Documented', score: 3 }),
      })
      expect(res.status).toBe(201)
      expect(Object.keys((await res.json()) as Json).sort()).toEqual([...(created['required'] as string[])].sort())
      expect(at(post, 'responses', '400')).toBeDefined()
    })
  })
}

describe.skipIf(unavailable('PostgreSQL (DATABASE_URL)', BACKENDS.every((b) => b.available)))('the document', () => {
  it('is the same on SQLite and PostgreSQL, byte for byte', () => {
    expect(served.get('sqlite')).toBeDefined()
    expect(served.get('postgres')).toBe(served.get('sqlite'))
  })
})
