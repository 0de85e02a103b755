import { Validator } from '@seriousme/openapi-schema-validator'
import { describe, expect, it } from 'vitest'
import { BasicAuthentication } from '../authentication/basic-authentication.js'
import { RemoteUserAuthentication } from '../authentication/remote-user-authentication.js'
import { SessionAuthentication } from '../authentication/session-authentication.js'
import { TokenAuthentication } from '../authentication/token-authentication.js'
import { jsonResponse } from '../core/api-response.js'
import { createApi } from '../core/api.js'
import type { AuthenticationScheme } from '../core/authentication-scheme.js'
import { ConfigurationError } from '../core/errors.js'
import type { Paginator } from '../core/paginator.js'
import { route } from '../core/route.js'
import { ArrayPageSource } from '../pagination/array-page-source.js'
import { CursorPagination } from '../pagination/cursor-pagination.js'
import { LimitOffsetPagination } from '../pagination/limit-offset-pagination.js'
import { LinkHeaderPagination } from '../pagination/link-header-pagination.js'
import { listHandler } from '../pagination/list-handler.js'
import { PageNumberPagination } from '../pagination/page-number-pagination.js'
import { AllowAny } from '../permissions/allow-any.js'
import { IsAdminUser } from '../permissions/is-admin-user.js'
import { IsAuthenticated } from '../permissions/is-authenticated.js'
import { IsAuthenticatedOrReadOnly } from '../permissions/is-authenticated-or-read-only.js'
import { and, not, or } from '../permissions/permission.js'
import { AnonRateThrottle } from '../throttling/anon-rate-throttle.js'
import { MemoryThrottleStore } from '../throttling/memory-throttle-store.js'
import { namedSchema } from '../core/named-schema.js'
import { LoginFailureThrottle } from '../throttling/login-failure-throttle.js'
import { describeHandler } from './describe-handler.js'
import { openApiDocument } from './document.js'
import { toOpenApi30 } from './openapi-30.js'

type Json = Record<string, unknown>
const at = (value: unknown, ...keys: string[]): unknown => {
  let current = value
  for (const key of keys) current = (current as Json | undefined)?.[key]
  return current
}
const INFO = { title: 'Test', version: '1' }
const nobody = { authenticate: async () => null, findById: async () => null, findByUsername: async () => null, create: async () => { throw new Error('no') }, get: async () => null }
const get = async (): Promise<ReturnType<typeof jsonResponse>> => jsonResponse(200, {})
const rows = [{ id: 1, created: '2024-01-01T00:00:00Z' }]
const list = listHandler({ source: () => new ArrayPageSource(rows), serialize: (r) => r })

async function expectValid(doc: unknown): Promise<void> {
  const result = await new Validator().validate(doc as Json)
  expect(result.errors).toBeUndefined()
  expect(result.valid).toBe(true)
}

describe('openApiDocument: security', () => {
  it('maps each built-in scheme to its Security Scheme Object, and Token keywords other than Bearer to an API key', async () => {
    const api = createApi()
    const token = new TokenAuthentication({ tokens: { findByKey: async () => null }, users: nobody })
    const bearer = new TokenAuthentication({ tokens: { findByKey: async () => null }, users: nobody, keyword: 'Bearer' })
    const apiKey = new TokenAuthentication({ tokens: { findByKey: async () => null }, users: nobody, keyword: 'Api-Key' })
    const remote = new RemoteUserAuthentication({ users: nobody, header: 'X-Forwarded-User', trustAnyClient: true })
    const doc = openApiDocument(
      [route('/a/', api.view({ name: 'A', authentication: [new BasicAuthentication({ users: nobody }), token, bearer, apiKey, remote], permissions: [new IsAuthenticated()], handlers: { GET: get } }))],
      { info: INFO },
    )
    await expectValid(doc)
    expect(at(doc, 'components', 'securitySchemes')).toEqual({
      basicAuth: { type: 'http', scheme: 'basic' },
      tokenAuth: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Token-based authentication with required prefix "Token": `Authorization: Token <key>`' },
      bearerAuth: { type: 'http', scheme: 'bearer' },
      'api-keyAuth': { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Token-based authentication with required prefix "Api-Key": `Authorization: Api-Key <key>`' },
      remoteUserAuth: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Forwarded-User' }),
    })
    expect(at(doc, 'paths', '/a/', 'get', 'security')).toEqual([{ basicAuth: [] }, { tokenAuth: [] }, { bearerAuth: [] }, { 'api-keyAuth': [] }, { remoteUserAuth: [] }])
  })

  it('requires the CSRF header with the session cookie on unsafe methods only, under the configured names', () => {
    const session = new SessionAuthentication({ sessions: nobody, users: nobody, cookieName: 'sid', csrf: { headerName: 'X-XSRF-TOKEN', cookieName: 'xsrf' } })
    const api = createApi({ authentication: [session] })
    const handlers = { GET: get, POST: get, PUT: get, PATCH: get, DELETE: get }
    const doc = openApiDocument([route('/s/', api.view({ handlers }))], { info: INFO })
    expect(at(doc, 'paths', '/s/', 'get', 'security')).toEqual([{ cookieAuth: [] }, {}])
    for (const method of ['post', 'put', 'patch', 'delete']) {
      expect(at(doc, 'paths', '/s/', method, 'security'), method).toEqual([{ cookieAuth: [], csrfToken: [] }, {}])
    }
    expect(at(doc, 'components', 'securitySchemes', 'cookieAuth')).toMatchObject({ in: 'cookie', name: 'sid' })
    expect(at(doc, 'components', 'securitySchemes', 'csrfToken')).toMatchObject({ in: 'header', name: 'X-XSRF-TOKEN' })
  })

  it('gives a second, different scheme of the same name a suffixed component', async () => {
    const api = createApi()
    const a = new SessionAuthentication({ sessions: nobody, users: nobody })
    const b = new SessionAuthentication({ sessions: nobody, users: nobody, cookieName: 'other' })
    const doc = openApiDocument(
      [route('/a/', api.view({ name: 'A', authentication: [a], handlers: { GET: get } })), route('/b/', api.view({ name: 'B', authentication: [b], handlers: { GET: get } }))],
      { info: INFO },
    )
    await expectValid(doc)
    expect(at(doc, 'components', 'securitySchemes', 'cookieAuth', 'name')).toBe('sessionid')
    expect(at(doc, 'components', 'securitySchemes', 'cookieAuth_2', 'name')).toBe('other')
    expect(at(doc, 'paths', '/b/', 'get', 'security')).toEqual([{ cookieAuth_2: [] }, {}])
  })

  it('leaves out a scheme that cannot describe itself, and notes it', async () => {
    const custom: AuthenticationScheme = { name: 'HmacAuthentication', authenticate: async () => null }
    const api = createApi({ authentication: [custom, new BasicAuthentication({ users: nobody })] })
    const doc = openApiDocument([route('/c/', api.view({ permissions: [new IsAuthenticated()], handlers: { GET: get } }))], { info: INFO })
    await expectValid(doc)
    expect(at(doc, 'paths', '/c/', 'get', 'security')).toEqual([{ basicAuth: [] }])
    expect(at(doc, 'paths', '/c/', 'get', 'x-undescribed-authentication')).toEqual(['HmacAuthentication'])
  })

  it('neither requires nor notes a scheme that describes an empty list (it reads no credentials)', async () => {
    const challengeOnly: AuthenticationScheme = { name: 'ChallengeOnly', authenticate: async () => null, authenticateHeader: () => 'Bearer realm="api"', openApiSecurity: () => [] }
    const api = createApi()
    const doc = openApiDocument([route('/t/', api.view({ authentication: [challengeOnly], permissions: [], handlers: { POST: get } }))], { info: INFO })
    await expectValid(doc)
    expect(at(doc, 'paths', '/t/', 'post', 'security')).toEqual([{}])
    expect(at(doc, 'paths', '/t/', 'post', 'x-undescribed-authentication')).toBeUndefined()
  })

  it('lists `{}` exactly where the permissions let anonymous requests through', () => {
    const api = createApi({ authentication: [new BasicAuthentication({ users: nobody })] })
    const cases: [string, Parameters<typeof api.view>[0]['permissions'], boolean, boolean][] = [
      ['none', [], true, true],
      ['allow-any', [new AllowAny()], true, true],
      ['authenticated', [new IsAuthenticated()], false, false],
      ['admin', [new IsAdminUser()], false, false],
      ['read-only', [new IsAuthenticatedOrReadOnly()], true, false],
      ['and', [and(new AllowAny(), new IsAuthenticatedOrReadOnly())], true, false],
      ['or', [or(new IsAdminUser(), new IsAuthenticatedOrReadOnly())], true, false],
      ['not', [not(new IsAuthenticated())], true, true],
      ['custom', [{ hasPermission: () => true }], false, false],
      ['not custom', [not({ hasPermission: () => false })], false, false],
    ]
    const doc = openApiDocument(
      cases.map(([name, permissions]) => route(`/${name}/`, api.view({ name, permissions: permissions ?? [], handlers: { GET: get, POST: get } }))),
      { info: INFO },
    )
    for (const [name, , getAnonymous, postAnonymous] of cases) {
      expect((at(doc, 'paths', `/${name}/`, 'get', 'security') as unknown[]).some((r) => JSON.stringify(r) === '{}'), `${name} GET`).toBe(getAnonymous)
      expect((at(doc, 'paths', `/${name}/`, 'post', 'security') as unknown[]).some((r) => JSON.stringify(r) === '{}'), `${name} POST`).toBe(postAnonymous)
    }
  })
})

describe('openApiDocument: operations', () => {
  it('describes each pagination style\'s parameters and envelope, as DRF\'s schema helpers do', async () => {
    const api = createApi()
    const styles: [string, Paginator | null][] = [
      ['page', new PageNumberPagination({ pageSize: 5, pageQueryParam: 'p' })],
      ['page-none', new PageNumberPagination({ pageSize: 5, count: 'none' })],
      ['offset', new LimitOffsetPagination({ defaultLimit: 5, limitQueryParam: 'n', offsetQueryParam: 'skip' })],
      ['cursor', new CursorPagination({ pageSize: 5, cursorQueryParam: 'c', secret: 'a-test-secret-of-32-characters!!' })],
      ['link', new LinkHeaderPagination({ pageSize: 5 })],
      ['link-none', new LinkHeaderPagination({ pageSize: 5, count: 'none' })],
      ['plain', null],
    ]
    const doc = openApiDocument(styles.map(([name, pagination]) => route(`/${name}/`, api.view({ name, pagination, handlers: { GET: list } }))), { info: INFO })
    await expectValid(doc)
    const params = (name: string): unknown => at(doc, 'paths', `/${name}/`, 'get', 'parameters')
    const body = (name: string): Json => at(doc, 'paths', `/${name}/`, 'get', 'responses', '200', 'content', 'application/json', 'schema') as Json
    expect(params('page')).toEqual([
      {
        name: 'p',
        required: false,
        in: 'query',
        description: 'A page number within the paginated result set.',
        schema: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string', enum: ['last'] }] },
      },
    ])
    expect(params('offset')).toEqual([
      { name: 'n', required: false, in: 'query', description: 'Number of results to return per page.', schema: { type: 'integer', minimum: 1 } },
      { name: 'skip', required: false, in: 'query', description: 'The initial index from which to return the results.', schema: { type: 'integer', minimum: 0 } },
    ])
    expect(params('cursor')).toEqual([{ name: 'c', required: false, in: 'query', description: 'The pagination cursor value.', schema: { type: 'string' } }])
    expect(params('plain')).toBeUndefined()
    expect(body('page')).toEqual({
      type: 'object',
      required: ['count', 'next', 'previous', 'results'],
      properties: {
        count: { type: 'integer', example: 123 },
        next: { type: ['string', 'null'], format: 'uri', example: 'http://api.example.org/accounts/?p=4' },
        previous: { type: ['string', 'null'], format: 'uri', example: 'http://api.example.org/accounts/?p=2' },
        results: { type: 'array', items: {} },
      },
    })
    expect(at(body('page-none'), 'properties', 'count', 'type')).toEqual(['integer', 'null'])
    expect(at(body('offset'), 'properties', 'next', 'example')).toBe('http://api.example.org/accounts/?skip=400&n=100')
    expect(body('cursor')['required']).toEqual(['next', 'previous', 'results'])
    expect(Object.keys(body('cursor')['properties'] as Json)).toEqual(['next', 'previous', 'results'])
    expect(body('link')).toEqual({ type: 'array', items: {} })
    expect(Object.keys(at(doc, 'paths', '/link/', 'get', 'responses', '200', 'headers') as Json)).toEqual(['Link', 'X-Total-Count'])
    expect(Object.keys(at(doc, 'paths', '/link-none/', 'get', 'responses', '200', 'headers') as Json)).toEqual(['Link'])
    expect(body('plain')).toEqual({ type: 'array', items: {} })
  })

  it('describes a paginator without OpenAPI methods as any body, with no parameters', () => {
    const bare: Paginator = {
      paginate: async () => null,
      paginatedResponse: () => jsonResponse(200, []),
      htmlContext: () => ({ previousUrl: null, nextUrl: null }),
      toHtml: () => '',
    }
    const doc = openApiDocument([route('/x/', createApi().view({ pagination: bare, handlers: { GET: list } }))], { info: INFO })
    expect(at(doc, 'paths', '/x/', 'get', 'parameters')).toBeUndefined()
    expect(at(doc, 'paths', '/x/', 'get', 'responses', '200', 'content', 'application/json', 'schema')).toEqual({})
  })

  it('turns `:id` into a path parameter, keeps operationIds unique, and describes bodies, statuses and error answers', async () => {
    const api = createApi({ authentication: [new BasicAuthentication({ users: nobody })], throttles: [new AnonRateThrottle({ store: new MemoryThrottleStore(), rate: '5/min' })] })
    const input = { type: 'object', required: ['title'], properties: { title: { type: 'string' } } } as const
    const handlers = {
      GET: get,
      PATCH: describeHandler(get, {
        requestBody: input,
        response: input,
        summary: 'Rename',
        tags: ['books'],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
      }),
      DELETE: describeHandler(get, { status: 204 }),
    }
    const doc = openApiDocument(
      [route('/books/:id/', api.view({ name: 'Book', permissions: [new IsAuthenticated()], handlers })), route('/other/:id/', api.view({ name: 'Book', handlers: { GET: get } }))],
      { info: INFO, servers: [{ url: 'https://api.example.com' }] },
    )
    await expectValid(doc)
    expect(doc.servers).toEqual([{ url: 'https://api.example.com' }])
    const item = at(doc, 'paths', '/books/{id}/') as Json
    expect(Object.keys(item)).toEqual(['get', 'patch', 'delete'])
    expect(at(item, 'get', 'parameters')).toEqual([{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }])
    expect(at(item, 'patch', 'parameters')).toEqual([{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }])
    expect(at(item, 'get', 'operationId')).toBe('retrieveBook')
    expect(at(doc, 'paths', '/other/{id}/', 'get', 'operationId')).toBe('retrieveBook2')
    expect(at(item, 'patch', 'operationId')).toBe('partialUpdateBook')
    expect(at(item, 'patch', 'summary')).toBe('Rename')
    expect(at(item, 'patch', 'tags')).toEqual(['books'])
    expect(at(item, 'get', 'tags')).toEqual(['books'])
    expect(at(item, 'patch', 'requestBody', 'content', 'application/json', 'schema')).toEqual(input)
    // 406 everywhere (content negotiation), 415 where a body is read.
    expect(Object.keys(at(item, 'patch', 'responses') as Json)).toEqual(['200', '400', '401', '403', '404', '406', '415', '429'])
    expect(Object.keys(at(item, 'get', 'responses') as Json)).toEqual(['200', '401', '403', '404', '406', '429'])
    expect(at(doc, 'components', 'responses', 'MethodNotAllowed', 'headers', 'Allow')).toBeDefined()
    expect(at(item, 'delete', 'responses', '204')).toEqual({ description: 'No Content' })
    expect(at(item, 'get', 'responses', '429', 'headers', 'Retry-After')).toBeDefined()
  })

  it('describeHandler changes the description only: the handler answers and validates as before', async () => {
    const api = createApi({ pagination: new CursorPagination({ ordering: '-created', pageSize: 5, secret: 'a-test-secret-of-32-characters!!' }) })
    const checked = listHandler({ source: () => new ArrayPageSource(rows), serialize: (r) => r, fields: ['id'], itemSchema: { type: 'object' } })
    const described = describeHandler(checked, { summary: 'Rows' })
    expect(described.openApi).toEqual({ list: { item: { type: 'object' } }, summary: 'Rows' })
    // The cursor orders by `created`, which `fields` lacks: still refused when the view is declared.
    expect(() => api.view({ handlers: { GET: described } })).toThrow(ConfigurationError)
    const plain = describeHandler(get, { summary: 'x' })
    const view = createApi().view({ handlers: { GET: plain } })
    expect(view.declared.handlers.GET).toBe(plain)
  })

  it('the validator used here rejects a broken document (the checks above are not vacuous)', async () => {
    const doc = openApiDocument([route('/a/', createApi({ authentication: [new BasicAuthentication({ users: nobody })] }).view({ handlers: { GET: get } }))], { info: INFO })
    const broken = JSON.parse(JSON.stringify(doc)) as Json
    ;(at(broken, 'components', 'securitySchemes', 'basicAuth') as Json)['type'] = 'password'
    const result = await new Validator().validate(broken)
    expect(result.valid).toBe(false)
  })
})

describe('toOpenApi30', () => {
  it('turns a type list with null into nullable, and leaves everything else alone', () => {
    expect(toOpenApi30({ a: { type: ['string', 'null'], format: 'uri' }, b: { type: 'integer' }, c: [{ type: ['integer', 'null'] }] })).toEqual({
      a: { nullable: true, type: 'string', format: 'uri' },
      b: { type: 'integer' },
      c: [{ nullable: true, type: 'integer' }],
    })
    expect(toOpenApi30({ type: ['integer', 'string'] })).toEqual({ anyOf: [{ type: 'integer' }, { type: 'string' }] })
  })
})

describe('openApiDocument: HTML pages', () => {
  it('lists no text/html unless asked: a generated client types answers as JSON', () => {
    const api = createApi({ authentication: [new BasicAuthentication({ users: nobody })], permissions: [new IsAuthenticated()] })
    const doc = openApiDocument([route('/both/', api.view({ name: 'Both', handlers: { GET: list } }))], { info: INFO })
    expect(JSON.stringify(doc)).not.toContain('text/html')
  })

  it('with `html: true`, lists text/html beside JSON in every answer with a body of a view that renders HTML; not for a JSON-only view or a 204', async () => {
    const api = createApi({ authentication: [new BasicAuthentication({ users: nobody })], permissions: [new IsAuthenticated()] })
    const noContent = describeHandler(async () => jsonResponse(204, undefined), { status: 204 })
    const doc = openApiDocument(
      [
        route('/both/', api.view({ name: 'Both', handlers: { GET: list, DELETE: noContent } })),
        route('/json/', api.view({ name: 'Json', formats: ['json'], handlers: { GET: get } })),
      ],
      { info: INFO, html: true },
    )
    await expectValid(doc)
    const types = (path: string, method: string, status: string): string[] => Object.keys((at(doc, 'paths', path, method, 'responses', status, 'content') as Json | undefined) ?? {})
    for (const status of ['200', '401', '403']) expect(types('/both/', 'get', status), status).toEqual(['application/json', 'text/html'])
    expect(at(doc, 'paths', '/both/', 'get', 'responses', '200', 'content', 'text/html', 'schema', 'type')).toBe('string')
    expect(types('/both/', 'delete', '204')).toEqual([])
    expect(types('/both/', 'delete', '401')).toEqual(['application/json', 'text/html'])
    for (const status of ['200', '401', '403']) expect(types('/json/', 'get', status), status).toEqual(['application/json'])
  })
})

describe('openApiDocument: named schemas and derived statuses', () => {
  const article = namedSchema('Article', { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } })

  it('writes a named schema once under components.schemas and refers to it, and names each style\'s envelope after it', async () => {
    const api = createApi()
    const source = (): ArrayPageSource<{ id: number }> => new ArrayPageSource([{ id: 1 }])
    const itemList = listHandler({ source, serialize: (r) => r, itemSchema: article })
    const styles: [string, Paginator | null][] = [
      ['page', new PageNumberPagination({ pageSize: 5 })],
      ['page2', new PageNumberPagination({ pageSize: 7 })],
      ['offset', new LimitOffsetPagination({ defaultLimit: 5, maxLimit: 9 })],
      ['cursor', new CursorPagination({ ordering: 'id', pageSize: 5, secret: 'a-test-secret-of-32-characters!!' })],
      ['plain', null],
    ]
    const routes = styles.map(([name, pagination]) => route(`/${name}/`, api.view({ name, pagination, handlers: { GET: itemList } })))
    routes.push(route('/one/', api.view({ name: 'one', handlers: { POST: describeHandler(get, { requestBody: article, response: article, status: 201 }) } })))
    const doc = openApiDocument(routes, { info: INFO })
    await expectValid(doc)
    const body = (name: string): unknown => at(doc, 'paths', `/${name}/`, 'get', 'responses', '200', 'content', 'application/json', 'schema')
    expect(body('page')).toEqual({ $ref: '#/components/schemas/ArticlePage' })
    expect(body('page2')).toEqual({ $ref: '#/components/schemas/ArticlePage' })
    expect(body('offset')).toEqual({ $ref: '#/components/schemas/ArticleOffsetPage' })
    expect(body('cursor')).toEqual({ $ref: '#/components/schemas/ArticleCursorPage' })
    expect(body('plain')).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Article' } })
    expect(at(doc, 'paths', '/one/', 'post', 'requestBody', 'content', 'application/json', 'schema')).toEqual({ $ref: '#/components/schemas/Article' })
    expect(at(doc, 'paths', '/one/', 'post', 'responses', '201', 'content', 'application/json', 'schema')).toEqual({ $ref: '#/components/schemas/Article' })
    expect(at(doc, 'components', 'schemas', 'Article')).toEqual({ type: 'object', required: ['id'], properties: { id: { type: 'integer' } } })
    expect(at(doc, 'components', 'schemas', 'ArticlePage', 'properties', 'results')).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Article' } })
    expect(at(doc, 'components', 'schemas', 'ErrorDetail')).toBeDefined()
    expect(at(doc, 'components', 'schemas', 'Error')).toBeUndefined()
    // The symbol naming the schema never reaches the JSON.
    expect(JSON.stringify(article)).toBe('{"type":"object","required":["id"],"properties":{"id":{"type":"integer"}}}')
    expect(at(doc, 'paths', '/offset/', 'get', 'parameters', '0', 'schema')).toEqual({ type: 'integer', minimum: 1, maximum: 9 })
  })

  it('a name given to two different schemas is suffixed, never silently merged', () => {
    const other = namedSchema('Article', { type: 'string' })
    const api = createApi()
    const doc = openApiDocument(
      [route('/a/', api.view({ handlers: { GET: describeHandler(get, { response: article }) } })), route('/b/', api.view({ handlers: { GET: describeHandler(get, { response: other }) } }))],
      { info: INFO },
    )
    expect(at(doc, 'paths', '/b/', 'get', 'responses', '200', 'content', 'application/json', 'schema')).toEqual({ $ref: '#/components/schemas/Article_2' })
    expect(() => namedSchema('no spaces', {})).toThrow(TypeError)
  })

  it('lists 429 where a scheme (Basic with a failed-login throttle) or the handler says it answers one', () => {
    const store = new MemoryThrottleStore()
    const loginFailures = new LoginFailureThrottle({ store, rate: '5/min' })
    const plain = createApi({ authentication: [new BasicAuthentication({ users: nobody })] })
    const guarded = createApi({ authentication: [new BasicAuthentication({ users: nobody, loginFailures })] })
    const doc = openApiDocument(
      [
        route('/plain/', plain.view({ handlers: { GET: get } })),
        route('/guarded/', guarded.view({ handlers: { GET: get } })),
        route('/handler/', plain.view({ handlers: { GET: describeHandler(get, { errors: [429] }) } })),
      ],
      { info: INFO },
    )
    expect(at(doc, 'paths', '/plain/', 'get', 'responses', '429')).toBeUndefined()
    expect(at(doc, 'paths', '/guarded/', 'get', 'responses', '429', 'headers', 'Retry-After')).toBeDefined()
    expect(at(doc, 'paths', '/handler/', 'get', 'responses', '429', 'headers', 'Retry-After')).toBeDefined()
  })

  it('writes the license and a server: `/` unless told', () => {
    const doc = openApiDocument([], { info: { ...INFO, license: { name: 'MIT', identifier: 'MIT' } } })
    expect(doc.info).toEqual({ title: 'Test', version: '1', license: { name: 'MIT', identifier: 'MIT' } })
    expect(doc.servers).toEqual([{ url: '/' }])
  })
})
