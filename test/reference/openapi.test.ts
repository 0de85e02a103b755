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
  describe.skipIf(!backend.available)(`GET /api/openapi.json (${backend.name})`, () => {
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

    it('describes every route of the reference API, and only those, with each handler method', () => {
      const routes = referenceRoutes(server.ref)
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
      expect(at(paths, '/api/openapi.json', 'get', 'security')).toEqual([{}])
      // The first scheme decides 401 (a challenge) or 403.
      expect(at(paths, '/api/schemes/basic-session/', 'get', 'responses', '401', 'headers', 'WWW-Authenticate')).toBeDefined()
      expect(at(paths, '/api/schemes/session-basic/', 'get', 'responses', '401')).toBeUndefined()
      expect(at(paths, '/api/schemes/session-basic/', 'get', 'responses', '403')).toBeDefined()
      expect(at(paths, '/api/auth/token/throttled/', 'post', 'responses', '429', 'headers', 'Retry-After')).toBeDefined()
      expect(at(paths, '/api/auth/token/', 'post', 'responses', '429')).toBeUndefined()
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
        schema: { type: 'integer' },
      })
      expect((at(paths, '/api/articles/cursor/', 'get', 'parameters') as Json[])[0]).toMatchObject({ description: 'The pagination cursor value.', schema: { type: 'string' } })
    })

    it('describes each paginated envelope as the routes answer it', async () => {
      const pageEnvelope = successSchema(at(paths, '/api/articles/', 'get'))
      expect(pageEnvelope['required']).toEqual(['count', 'results'])
      expect(at(pageEnvelope, 'properties', 'count')).toEqual({ type: 'integer', example: 123 })
      expect(at(pageEnvelope, 'properties', 'next')).toEqual({ type: ['string', 'null'], format: 'uri', example: 'http://api.example.org/accounts/?page=4' })
      expect(at(successSchema(at(paths, '/api/articles/cursor/', 'get')), 'properties', 'count')).toBeUndefined()
      expect(successSchema(at(paths, '/api/articles/all/', 'get'))['type']).toBe('array')
      const linkHeader = at(paths, '/api/articles/link-header/', 'get', 'responses', '200') as Json
      expect(Object.keys(linkHeader['headers'] as Json)).toEqual(['Link', 'X-Total-Count'])

      // The live answers have exactly the documented keys, and items the documented fields.
      const item = at(pageEnvelope, 'properties', 'results', 'items') as Json
      for (const path of ['/api/articles/', '/api/articles/offset/', '/api/articles/cursor/', '/api/articles/nested/', '/api/articles/manual/']) {
        const schema = successSchema(at(paths, path, 'get'))
        const body = (await (await fetch(`${server.baseUrl}${path}`)).json()) as Json
        expect(Object.keys(body).sort(), path).toEqual(Object.keys(schema['properties'] as Json).sort())
        expect(Object.keys((body['results'] as Json[])[0] ?? {}).sort(), path).toEqual([...(item['required'] as string[])].sort())
      }
      const nested = successSchema(at(paths, '/api/articles/nested/', 'get'))
      expect(Object.keys(at(nested, 'properties', 'links', 'properties') as Json)).toEqual(['next', 'previous'])
    })

    it('describes errors as the routes answer them: a bad page is a documented 404 `{"detail"}`', async () => {
      expect(at(paths, '/api/articles/', 'get', 'responses', '404', 'content', 'application/json', 'schema')).toEqual({ $ref: '#/components/schemas/Error' })
      expect(at(doc, 'components', 'schemas', 'Error')).toEqual({ type: 'object', required: ['detail'], properties: { detail: { type: 'string' } } })
      const res = await fetch(`${server.baseUrl}/api/articles/?page=x`)
      expect(res.status).toBe(404)
      expect(await res.json()).toEqual({ detail: 'Invalid page.' })
    })

    it('describes the article POST: its body, its 201 and its validation errors', async () => {
      const post = at(paths, '/api/articles/', 'post')
      expect(at(post, 'requestBody', 'content', 'application/json', 'schema', 'required')).toEqual(['title', 'score'])
      expect(Object.keys(at(post, 'requestBody', 'content') as Json)).toEqual(['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'])
      const created = successSchema(post, '201')
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

describe.skipIf(!BACKENDS.every((b) => b.available))('the document', () => {
  it('is the same on SQLite and PostgreSQL, byte for byte', () => {
    expect(served.get('sqlite')).toBeDefined()
    expect(served.get('postgres')).toBe(served.get('sqlite'))
  })
})
