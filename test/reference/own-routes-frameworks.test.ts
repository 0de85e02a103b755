/**
 * The own-routes style (`policies()` in front of the app's own handlers) gives the same answer on
 * Fastify, Express, Hono and node:http: status, every header but Date, and the body byte for byte
 * (issue 31 items 2 and 4). The apps are test/helpers/own-routes-apps.ts: each reads the body one
 * way, `requestContext(…).request.body()`, and its path parameters from `requestContext(…).params`
 * (node:http through `policies(api, { path })`).
 */
import { describe, expect, it } from 'vitest'
import { exchange, type ExchangeRequest, type ExchangeResult } from '../oracle/http-exchange.js'
import { OWN_ROUTES_ADAPTERS, TOKEN, useOwnRoutesApps, type OwnRoutesAdapter } from '../helpers/own-routes-apps.js'

const ADAPTERS = OWN_ROUTES_ADAPTERS
type Adapter = OwnRoutesAdapter
const running = useOwnRoutesApps()

const AUTH = { Authorization: `Token ${TOKEN}` }

type OwnRoutesRequest = ExchangeRequest & { readonly expect?: { readonly status: number; readonly text: string } }

/** A POST to the book list by bob, its body of `contentType`. */
function create(name: string, contentType: string, body: string, expect?: OwnRoutesRequest['expect']): OwnRoutesRequest {
  return { name, method: 'POST', path: '/api/books/', headers: { ...AUTH, 'Content-Type': contentType }, body, ...(expect === undefined ? {} : { expect }) }
}

/** DRF's 415 for a body of `contentType`, which it names whole. */
const unsupported = (contentType: string): OwnRoutesRequest =>
  create(`create with ${contentType}`, contentType, 'x', { status: 415, text: `{"detail":"Unsupported media type \\"${contentType}\\" in request."}` })

/** The requests, and the answers DRF gives to the ones issue 31 names (the rest must only agree). */
const REQUESTS: readonly OwnRoutesRequest[] = [
  { name: 'list', method: 'GET', path: '/api/books/' },
  { name: 'list page 2', method: 'GET', path: '/api/books/?page=2' },
  { name: 'detail with a path parameter', method: 'GET', path: '/api/books/3/', headers: AUTH, expect: { status: 200, text: '{"id":3,"title":"Book 3"}' } },
  { name: 'detail of a book that does not exist', method: 'GET', path: '/api/books/99/', headers: AUTH, expect: { status: 404, text: '{"detail":"Not found."}' } },
  { name: 'detail anonymous', method: 'GET', path: '/api/books/3/' },
  create('create with JSON', 'application/json', '{"title": "JSON book"}', { status: 201, text: '{"id":99,"title":"JSON book"}' }),
  create('create with a form', 'application/x-www-form-urlencoded', 'title=Form+book', { status: 201, text: '{"id":99,"title":"Form book"}' }),
  unsupported('text/plain'),
  unsupported('text/plain; charset=utf-8'),
  create('create with malformed JSON', 'application/json', '{"title": '),
  { name: 'create with text/plain, anonymous (the refusal first)', method: 'POST', path: '/api/books/', headers: { 'Content-Type': 'text/plain' }, body: 'x' },
  { name: 'ping', method: 'GET', path: '/api/ping/' },
]

/** Everything the servers must agree on: status, every header but Date/Connection/Keep-Alive, and the body's bytes. */
function wire(result: ExchangeResult): Record<string, unknown> {
  const headers: Record<string, string> = {}
  for (const name of Object.keys(result.headers).sort()) if (!['date', 'connection', 'keep-alive'].includes(name)) headers[name] = result.headers[name] ?? ''
  return { status: result.status, headers, body: result.text.replace(/http:\/\/127\.0\.0\.1:\d+/g, 'http://<server>') }
}

describe('the own-routes style answers the same on Fastify, Express, Hono and node:http', () => {
  it(`for ${REQUESTS.length} requests, DRF's answers where issue 31 names them`, async () => {
    const mismatches: string[] = []
    for (const request of REQUESTS) {
      const answers = new Map<Adapter, string>()
      for (const adapter of ADAPTERS) {
        const result = await exchange(running.get(adapter)!.baseUrl, request, new Map())
        answers.set(adapter, JSON.stringify(wire(result)))
        if (request.expect !== undefined && (result.status !== request.expect.status || result.text !== request.expect.text)) {
          mismatches.push(`${request.name} on ${adapter}: ${result.status} ${result.text}`)
        }
      }
      for (const adapter of ADAPTERS.slice(1)) {
        if (answers.get(adapter) !== answers.get('fastify')) mismatches.push(`${request.name}\n  fastify: ${answers.get('fastify')}\n  ${adapter}: ${answers.get(adapter)}`)
      }
    }
    expect(mismatches).toEqual([])
  }, 60_000)
})
