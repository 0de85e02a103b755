/**
 * The reference API on all four frameworks at once: Fastify (`mountRoutes`, an encapsulated scope),
 * Express (`mountRoutes`), Hono (`mountRoutes` on @hono/node-server) and plain node:http
 * (`router`), each over a real socket on its own freshly seeded SQLite database. The oracle's
 * request list plus adapter edge cases goes to each, in the same order, and every answer must
 * be the same: status, every header but Date, and the body byte for byte (values that
 * legitimately differ between two servers, such as generated keys and ports, masked).
 * The oracle's lists include WIRE_REQUESTS (upper-case paths, `%2F` and dot segments,
 * extension methods such as PROPFIND and QUERY, 204 answers and their headers), which is
 * what catches one framework routing or answering on its own (issue 17 items 12–14).
 * The conformance and oracle suites themselves also run once per framework (vitest projects).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FRAMEWORKS, type Framework } from '../../examples/reference-api/app.js'
import { freshSqlite } from '../helpers/databases.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { TEST_SECRET } from '../helpers/secrets.js'
import { exchange, send, setCookieValue, type ExchangeRequest, type ExchangeResult, type SessionCookies } from '../oracle/http-exchange.js'
import { ALL_REQUESTS, BOB_TOKEN } from '../oracle/requests.js'

/** The reference API's default hosts, plus the name the link tests use. */
const HOSTS = ['localhost', '127.0.0.1', '[::1]', 'api.example']
const JSON_HEADERS = { 'Content-Type': 'application/json' }
const ALICE = JSON.stringify({ username: 'alice', password: 'alice-pass-1' })
const OVER_LIMIT = JSON.stringify({ username: 'alice', password: 'x'.repeat(1024 * 1024) })

const servers = new Map<Framework, RunningReference>()

beforeAll(async () => {
  // One secret for all (separate databases would each make their own), so cursors compare equal.
  const started = await Promise.all(
    FRAMEWORKS.map((framework) => startReference(freshSqlite(), { allowedHosts: HOSTS, secrets: [TEST_SECRET] }, { framework })),
  )
  for (const server of started) servers.set(server.framework, server)
}, 60_000)
afterAll(async () => {
  await Promise.all([...servers.values()].map((server) => server.close()))
})

// Values that legitimately differ between two servers: their ports, generated keys, CSRF masks,
// cookie values, and the creation time of a new article (the seed's are 2024).
const SEED_KEYS = new Set([BOB_TOKEN, 'ca7013ca7013ca7013ca7013ca7013ca7013ca70'])
const maskText = (text: string): string =>
  text
    .replace(/http:\/\/127\.0\.0\.1:\d+/g, 'http://<server>')
    .replace(/\b(?!2024-)\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<now>')
    .replace(/\b[0-9a-f]{40}\b/g, (key) => (SEED_KEYS.has(key) ? key : '<token>'))
    .replace(/"csrfToken":\s*"[^"]*"/g, '"csrfToken": "<csrf>"')
const maskCookies = (value: string | undefined): string[] | null =>
  value === undefined
    ? null
    : value.split('\n').map((line) => line.replace(/^([^=]*)=[^;]*/, '$1=<value>').replace(/expires=[^;]*/i, 'expires=<date>'))

/** Everything the servers must agree on: status, every header but Date, and the body's bytes. */
function wire(result: ExchangeResult): Record<string, unknown> {
  const headers: Record<string, unknown> = {}
  for (const name of Object.keys(result.headers).sort()) {
    if (name === 'date') continue
    const value = result.headers[name]
    // Content-Length must equal the body's bytes; compared as such, since a masked value (a
    // creation time with or without milliseconds) may change the length between servers.
    if (name === 'content-length') headers[name] = value === String(Buffer.byteLength(result.text)) ? '<length of the body>' : value
    else headers[name] = name === 'set-cookie' ? maskCookies(value) : value === undefined ? null : maskText(value)
  }
  return { status: result.status, headers, body: maskText(result.text) }
}

const EXTRA_REQUESTS: readonly ExchangeRequest[] = [
  { name: 'articles page 1', method: 'GET', path: '/api/articles/' },
  { name: 'articles page 2 of alice', method: 'GET', path: '/api/articles/?author=alice&page=2' },
  { name: 'articles page out of range', method: 'GET', path: '/api/articles/?page=999' },
  { name: 'articles other Host', method: 'GET', path: '/api/articles/', headers: { Host: 'api.example:8080' } },
  { name: 'articles offset', method: 'GET', path: '/api/articles/offset/?limit=3&offset=4' },
  { name: 'articles cursor', method: 'GET', path: '/api/articles/cursor/?page_size=3' },
  { name: 'articles bad cursor', method: 'GET', path: '/api/articles/cursor/?cursor=zzz' },
  { name: 'articles link header', method: 'GET', path: '/api/articles/link-header/?page=2' },
  { name: 'articles nested', method: 'GET', path: '/api/articles/nested/' },
  { name: 'articles html', method: 'GET', path: '/api/articles/?page=2', headers: { Accept: 'text/html' } },
  { name: 'html 401', method: 'GET', path: '/api/private/', headers: { Accept: 'text/html' } },
  { name: 'html 403', method: 'GET', path: '/api/staff/', headers: { Accept: 'text/html', Authorization: `Token ${BOB_TOKEN}` } },
  { name: 'html 404 invalid page', method: 'GET', path: '/api/articles/?page=99', headers: { Accept: 'text/html' } },
  { name: 'html 405', method: 'DELETE', path: '/api/whoami/', headers: { Accept: 'text/html' } },
  { name: 'html 400 field errors', method: 'POST', path: '/api/articles/', headers: { Accept: 'text/html', 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Token ${BOB_TOKEN}` }, body: 'title=x' },
  { name: 'html HEAD', method: 'HEAD', path: '/api/whoami/', headers: { Accept: 'text/html' } },
  { name: 'html logout 204 as 200', method: 'POST', path: '/api/auth/logout/', headers: { Accept: 'text/html' } },
  { name: 'html ?format=json 406', method: 'GET', path: '/api/whoami/?format=json', headers: { Accept: 'text/html' } },
  { name: 'articles POST anonymous', method: 'POST', path: '/api/articles/', headers: JSON_HEADERS, body: '{"title": "x", "score": 1}' },
  { name: 'articles POST bob', method: 'POST', path: '/api/articles/', headers: { ...JSON_HEADERS, Authorization: `Token ${BOB_TOKEN}` }, body: '{"title": " t ", "score": "7"}' },
  { name: 'articles OPTIONS', method: 'OPTIONS', path: '/api/articles/' },
  { name: 'articles HEAD', method: 'HEAD', path: '/api/articles/' },
  { name: 'token 413', method: 'POST', path: '/api/auth/token/', headers: JSON_HEADERS, body: OVER_LIMIT },
  { name: 'token text/plain 415', method: 'POST', path: '/api/auth/token/', headers: { 'Content-Type': 'text/plain' }, body: 'x' },
  { name: 'token malformed JSON', method: 'POST', path: '/api/auth/token/', headers: JSON_HEADERS, body: '{"a": [1,' },
  { name: 'token form body', method: 'POST', path: '/api/auth/token/', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'username=alice&password=alice-pass-1' },
  { name: 'token Accept text/html 406', method: 'POST', path: '/api/auth/token/', headers: { ...JSON_HEADERS, Accept: 'text/html' }, body: ALICE },
  { name: 'malformed Host', method: 'GET', path: '/api/whoami/', headers: { Host: 'exa mple.com' } },
  { name: 'unknown path', method: 'GET', path: '/api/nope/' },
  { name: 'no trailing slash', method: 'GET', path: '/api/whoami' },
  { name: 'dot segment path', method: 'GET', path: '/api/x/../whoami/' },
  { name: 'percent-encoded path', method: 'GET', path: '/api/who%61mi/' },
  { name: 'malformed percent-encoding in path', method: 'GET', path: '/api/%zz/' },
  { name: 'malformed percent-encoding in query', method: 'GET', path: '/api/articles/?author=%zz' },
  { name: 'lower-case method', method: 'get', path: '/api/whoami/' },
  { name: 'PATCH with a body', method: 'PATCH', path: '/api/whoami/', headers: JSON_HEADERS, body: '{}' },
  { name: 'percent-encoded query', method: 'GET', path: '/api/articles/?author=%61lice&page=%32' },
  { name: 'OpenAPI document', method: 'GET', path: '/api/openapi.json' },
  { name: 'OpenAPI document HEAD', method: 'HEAD', path: '/api/openapi.json' },
  // Issue 36 item 1: a redirect Node cannot send (a staff member's click on a crafted link) is
  // one logged 500, and the next request is answered (on Express and node:http it ended the process).
  { name: 'admin login, next Node cannot send (euro)', method: 'GET', path: '/admin/login/?next=/admin/%E2%82%AC', session: { username: 'admin', csrf: false } },
  { name: 'admin login, next Node cannot send (DEL)', method: 'GET', path: '/admin/login/?next=/admin/%7F', session: { username: 'admin', csrf: false } },
  { name: 'answered after a failed write', method: 'GET', path: '/api/whoami/' },
  // Issue 36 item 4: the request target is a path on the Host's origin, never a URL of its own.
  { name: 'absolute-form target keeps the Host in links', method: 'GET', path: '/api/articles/?page=2', target: 'http://api.example/api/articles/?page=2' },
  { name: 'absolute-form target naming a host not allowed', method: 'GET', path: '/api/whoami/', target: 'http://evil.example/api/whoami/' },
  { name: 'a target starting with // is a path', method: 'GET', path: '/api/whoami/', target: '//api.example/api/whoami/' },
]

describe('Fastify, Express, Hono and node:http give the same answers', () => {
  it(`for the ${ALL_REQUESTS.length + EXTRA_REQUESTS.length} oracle and adapter requests`, async () => {
    const sessions = new Map<string, SessionCookies | null>()
    const mismatches: string[] = []
    const [first, ...others] = FRAMEWORKS
    // Sequential, same order on each: some requests change state (tokens, users, articles).
    for (const request of [...ALL_REQUESTS, ...EXTRA_REQUESTS]) {
      const answers = new Map<Framework, string>()
      for (const framework of FRAMEWORKS) {
        const server = servers.get(framework)
        if (server === undefined) throw new Error(`${framework} did not start`)
        answers.set(framework, JSON.stringify(wire(await exchange(server.baseUrl, request, sessions))))
      }
      for (const framework of others) {
        if (answers.get(framework) !== answers.get(first)) {
          mismatches.push(`${request.name}\n  ${first}: ${answers.get(first)}\n  ${framework}: ${answers.get(framework)}`)
        }
      }
    }
    expect(mismatches).toEqual([])
    // The masks did not hide everything: session logins really set cookies on each.
    for (const server of servers.values()) {
      expect(setCookieValue(await send(server.baseUrl, 'GET', '/api/auth/csrf/'), 'csrftoken'), server.framework).not.toBeNull()
    }
  }, 180_000)
})
