/**
 * `ApiView` answers in HTML once negotiation chose `text/html`, as DRF's browsable API
 * renders every answer of a view (its errors too): same status and headers, the JSON on
 * the page, the security headers. A failed negotiation and errors before it stay JSON.
 */
import { describe, expect, it } from 'vitest'
import { buildRequest, type BuildRequestOptions } from '../helpers/build-request.js'
import { FakeTokenStore, FakeUserStore } from '../helpers/fake-auth-stores.js'
import { TokenAuthentication } from '../../src/authentication/token-authentication.js'
import { IsAuthenticated } from '../../src/permissions/is-authenticated.js'
import type { Throttle } from '../../src/core/throttle.js'
import { createApi } from '../../src/core/api.js'
import { emptyResponse, jsonResponse, withHeaders, type ApiResponse } from '../../src/core/api-response.js'
import { renderApiError } from '../../src/core/exception-handler.js'
import { ValidationError } from '../../src/core/errors.js'
import type { Settings } from '../../src/core/settings.js'
import type { ViewOptions } from '../../src/core/view.js'
import { formatResponse } from '../../src/core/format-response.js'

const token = new TokenAuthentication({ users: new FakeUserStore(), tokens: new FakeTokenStore([['b0b', 2]]) })
const HTML = { Accept: 'text/html' }

function view(settings: Partial<Settings>, options: Partial<ViewOptions> = {}): (req: BuildRequestOptions) => Promise<ApiResponse> {
  const v = createApi({ logError: () => undefined, authentication: [token], ...settings }).view({
    name: 'Things',
    handlers: { GET: async () => jsonResponse(200, { ok: true }) },
    ...options,
  })
  return async (req) => v.handle(buildRequest(req))
}

const header = (response: ApiResponse, name: string): string | undefined =>
  response.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1]

/** The response-info block of a page, tags stripped and the escaping undone. */
function shown(response: ApiResponse): string {
  const html = String(response.body)
  const block = html.slice(html.indexOf('<div class="response-info">'), html.indexOf('</div>', html.indexOf('<div class="response-info">')))
  return block.replace(/<[^>]*>/g, '').replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)))
}

function expectPage(response: ApiResponse): void {
  expect(header(response, 'Content-Type')).toBe('text/html; charset=utf-8')
  expect(header(response, 'X-Content-Type-Options')).toBe('nosniff')
  expect(header(response, 'X-Frame-Options')).toBe('DENY')
  const csp = header(response, 'Content-Security-Policy')
  expect(csp).toMatch(/^default-src 'none'; /)
  // form-action does not fall back to default-src: without it the filter form could be pointed anywhere.
  expect(csp?.split('; ')).toContain("form-action 'self'")
}

describe('HTML answers of an ApiView', () => {
  it('a 401 is a page with the same status, WWW-Authenticate, Allow and Vary, showing them and the JSON', async () => {
    const response = await view({ permissions: [new IsAuthenticated()] })({ headers: HTML })
    expect(response.status).toBe(401)
    expectPage(response)
    expect(header(response, 'WWW-Authenticate')).toBe('Token')
    expect(header(response, 'Allow')).toBe('GET, HEAD, OPTIONS')
    expect(header(response, 'Vary')).toBe('Accept')
    expect(shown(response)).toBe(
      [
        'HTTP 401 Unauthorized',
        'Allow: GET, HEAD, OPTIONS',
        'Content-Type: application/json',
        'Vary: Accept',
        'WWW-Authenticate: Token',
        '',
        '{\n    "detail": "Authentication credentials were not provided."\n}',
      ].join('\n'),
    )
  })

  it('a 429 keeps Retry-After, sent and shown', async () => {
    const throttle: Throttle = { check: async () => ({ allowed: false, waitSeconds: 42 }) }
    const response = await view({ throttles: [throttle] })({ headers: HTML })
    expect(response.status).toBe(429)
    expectPage(response)
    expect(header(response, 'Retry-After')).toBe('42')
    expect(shown(response)).toContain('HTTP 429 Too Many Requests\n')
    expect(shown(response)).toContain('\nRetry-After: 42\n')
    expect(shown(response)).toContain('"detail": "Request was throttled. Expected available in 42 seconds."')
  })

  it('a 405, a 400 from the handler and a 500 are pages too (the 500 never shows the error text)', async () => {
    const v = view({}, {
      handlers: {
        GET: async () => {
          throw new Error('secret connection string')
        },
        POST: async () => {
          throw new ValidationError({ title: ['This field is required.'] })
        },
      },
    })
    const notAllowed = await v({ method: 'DELETE', headers: HTML })
    expect([notAllowed.status, header(notAllowed, 'Allow')]).toEqual([405, 'GET, POST, HEAD, OPTIONS'])
    expect(shown(notAllowed)).toContain('"detail": "Method \\"DELETE\\" not allowed."')
    const invalid = await v({ method: 'POST', headers: HTML })
    expect(invalid.status).toBe(400)
    expect(shown(invalid)).toContain('"title": [\n        "This field is required."\n    ]')
    const failed = await v({ headers: HTML })
    expect(failed.status).toBe(500)
    expectPage(failed)
    expect(shown(failed)).toContain('"detail": "A server error occurred."')
    expect(String(failed.body)).not.toContain('secret')
  })

  it('a failed negotiation stays JSON: 406 (Accept), 404 (unknown ?format=); a JSON-only view answers text/html with 406', async () => {
    const v = view({ permissions: [new IsAuthenticated()] })
    const notAcceptable = await v({ url: 'http://testserver/api/?format=json', headers: HTML })
    expect([notAcceptable.status, header(notAcceptable, 'Content-Type'), notAcceptable.body]).toEqual([
      406,
      'application/json',
      { detail: 'Could not satisfy the request Accept header.' },
    ])
    expect(header(notAcceptable, 'Vary')).toBe('Accept')
    const unknown = await v({ url: 'http://testserver/api/?format=xml', headers: HTML })
    expect([unknown.status, header(unknown, 'Content-Type')]).toEqual([404, 'application/json'])
    const jsonOnly = await view({}, { formats: ['json'] })({ headers: HTML })
    expect([jsonOnly.status, header(jsonOnly, 'Content-Type'), header(jsonOnly, 'Vary')]).toEqual([406, 'application/json', undefined])
  })

  it('a disallowed host (checked before negotiation) is JSON', async () => {
    const response = await view({ allowedHosts: ['api.example'] })({ headers: HTML })
    expect([response.status, header(response, 'Content-Type'), response.body]).toEqual([400, 'application/json', { detail: 'Invalid Host header.' }])
  })

  it('?format=api asks for the page without an Accept header; a browser Accept gets it too', async () => {
    const v = view({})
    const api = await v({ url: 'http://testserver/api/?format=api' })
    expect([api.status, header(api, 'Content-Type')]).toEqual([200, 'text/html; charset=utf-8'])
    const browser = await v({ headers: { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } })
    expect(header(browser, 'Content-Type')).toBe('text/html; charset=utf-8')
    const json = await v({ headers: { Accept: 'text/html, application/json' } })
    expect(header(json, 'Content-Type')).toBe('application/json')
  })

  it('a 204 is sent as 200 with the page (DRF), shows 204; HEAD has the headers and no body', async () => {
    const v = view({}, { handlers: { GET: async () => emptyResponse(204) } })
    const page = await v({ headers: HTML })
    expect(page.status).toBe(200)
    expect(shown(page)).toMatch(/^HTTP 204 No Content\n/)
    const head = await v({ method: 'HEAD', headers: HTML })
    expect([head.status, head.body, header(head, 'Content-Type')]).toEqual([200, undefined, 'text/html; charset=utf-8'])
  })

  it('Set-Cookie is sent, never shown; the handler\'s Vary is merged into the shown Vary', async () => {
    const v = view({}, {
      handlers: { GET: async () => jsonResponse(200, {}, [['Set-Cookie', 'csrftoken=abc; Path=/'], ['Vary', 'Origin']]) },
    })
    const response = await v({ headers: HTML })
    expect(header(response, 'Set-Cookie')).toBe('csrftoken=abc; Path=/')
    expect(shown(response)).not.toContain('csrftoken')
    expect(shown(response)).toContain('\nVary: Origin, Accept\n')
    expect(header(response, 'Vary')).toBe('Origin, Accept')
  })

  it('an answer already in another format (a handler\'s or an exception handler\'s own) passes through', async () => {
    const text = view({}, { handlers: { GET: async () => ({ status: 200, headers: [['Content-Type', 'text/plain']], body: 'hello' }) } })
    const plain = await text({ headers: HTML })
    expect([plain.status, header(plain, 'Content-Type'), plain.body]).toEqual([200, 'text/plain', 'hello'])
    const custom = view({
      permissions: [new IsAuthenticated()],
      exceptionHandler: (error, ctx) => {
        const rendered = renderApiError(error, ctx)
        return rendered === null ? null : withHeaders({ ...rendered, headers: [['Content-Type', 'application/problem+json']] }, [['X-Error', 'yes']])
      },
    })
    const problem = await custom({ headers: HTML })
    expect([problem.status, header(problem, 'Content-Type'), header(problem, 'X-Error')]).toEqual([401, 'application/problem+json', 'yes'])
  })

  it('a body the page cannot serialise is the logged JSON 500, never a throw', async () => {
    const logged: unknown[] = []
    const v = createApi({ logError: (e) => logged.push(e) }).view({ handlers: { GET: async () => jsonResponse(200, { n: 1n }) } })
    const response = await v.handle(buildRequest({ headers: HTML }))
    expect([response.status, header(response, 'Content-Type'), response.body]).toEqual([500, 'application/json', { detail: 'A server error occurred.' }])
    expect(logged).toHaveLength(1)
  })

  it('page controls given with formatResponse are shown on the page only', async () => {
    const v = view({}, { handlers: { GET: async (ctx) => formatResponse(ctx, jsonResponse(200, []), '<ul class="pager"></ul>') } })
    const page = await v({ headers: HTML })
    expect(String(page.body)).toContain('<nav class="page-controls">\n<ul class="pager"></ul>\n</nav>')
    const json = await v({})
    expect([json.body, 'pageControls' in json]).toEqual([[], false])
  })
})
