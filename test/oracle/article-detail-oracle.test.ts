/**
 * `/api/articles/<id>/` (object permissions, issue 35) against the DRF 3.14 oracle's
 * `RetrieveUpdateDestroyAPIView` with `[IsAuthenticatedOrReadOnly, IsAuthorOrReadOnly]`: the
 * same requests in the same order to a freshly seeded oracle and reference API, on the vitest
 * project's framework and on SQLite and (with DATABASE_URL) PostgreSQL; status,
 * WWW-Authenticate, Allow, Vary, Content-Type and body must be equal. It covers the 401/403/404
 * order (request permissions, then the look-up, then the object permission, then the body),
 * the author-only writes, PATCH's partial validation, DELETE, and OPTIONS showing PUT's fields
 * only to the author (DRF's `determine_actions` calls `get_object()`).
 *
 * A non-numeric id is no route (Django's `<int:pk>`): gatehouse answers it exactly as it answers
 * any unknown URL on that framework, where Django answers its HTML 404 page (status compared).
 * Documented differences, asserted: an id past the column's range is DRF's 500 on SQLite
 * (Python's int overflows SQLite's), gatehouse's 404; `score` is checked against PostgreSQL's
 * `integer` range on every database, as POST /api/articles/ does (docs/pagination.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { oracleBackends } from '../helpers/databases.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { backendUnavailable, unavailable } from '../helpers/requirements.js'
import { comparable, exchange, send, type ExchangeRequest, type SessionCookies } from './http-exchange.js'
import { oracleAvailable, startOracle, type RunningOracle } from './oracle-server.js'
import { BOB_TOKEN, CAROL_TOKEN } from './requests.js'

const JSON_TYPE = { 'Content-Type': 'application/json' }
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
const ALICE = { Authorization: basic('alice', 'alice-pass-1') }
const ADMIN = { Authorization: basic('admin', 'admin-pass-4') }
const BOB = { Authorization: `Token ${BOB_TOKEN}` }
const CAROL = { Authorization: `Token ${CAROL_TOKEN}` }

let counter = 0
function req(method: string, path: string, headers: Record<string, string> = {}, body?: string, extra: Partial<ExchangeRequest> = {}): ExchangeRequest {
  counter += 1
  return { name: `#${counter} ${method} ${path} ${JSON.stringify(headers)}${body === undefined ? '' : ` ${body}`}`, method, path, headers, ...(body === undefined ? {} : { body }), ...extra }
}

/** In order: later requests see what earlier ones changed (article 1 edited, article 2 deleted). */
const REQUESTS: readonly ExchangeRequest[] = [
  // Reads: anyone, any id form Django's int converter takes.
  req('GET', '/api/articles/1/'),
  req('GET', '/api/articles/007/'),
  req('GET', '/api/articles/%37/'),
  req('GET', '/api/articles/137/', BOB),
  req('HEAD', '/api/articles/3/'),
  req('GET', '/api/articles/0/'),
  req('GET', '/api/articles/138/'),
  req('GET', '/api/articles/2147483647/'),
  req('GET', '/api/articles/1/?format=json'),
  req('GET', '/api/articles/1/?format=xml'),
  // The request half first: an anonymous write is 401, whether the article exists or not.
  req('PUT', '/api/articles/1/', JSON_TYPE, '{"title": "x", "score": 1}'),
  req('PATCH', '/api/articles/999/', JSON_TYPE, '{}'),
  req('DELETE', '/api/articles/1/'),
  req('TRACE', '/api/articles/1/'),
  req('POST', '/api/articles/1/'),
  req('POST', '/api/articles/1/', BOB),
  req('DELETE', '/api/articles/1/', CAROL),
  req('PUT', '/api/articles/1/', { Authorization: 'Token nope' }),
  // Then the look-up (404), then the object permission (403), then the body.
  req('PUT', '/api/articles/999/', { ...BOB, ...JSON_TYPE }, '{"title": "x", "score": 1}'),
  req('PUT', '/api/articles/1/', { ...BOB, ...JSON_TYPE }, '{"title": "x", "score": 1}'),
  req('PUT', '/api/articles/1/', { ...BOB, ...JSON_TYPE }, '{"bad'),
  req('PATCH', '/api/articles/1/', { ...ADMIN, ...JSON_TYPE }, '{"score": 2}'),
  req('DELETE', '/api/articles/2/', ALICE),
  // The author: DRF's parse and field errors, then the change.
  req('PUT', '/api/articles/1/', { ...ALICE, ...JSON_TYPE }, '{"bad'),
  req('PUT', '/api/articles/1/', { ...ALICE, ...JSON_TYPE }, '{"title": "only a title"}'),
  req('PUT', '/api/articles/1/', { ...ALICE, ...JSON_TYPE }, '{"title": "", "score": "abc"}'),
  req('PUT', '/api/articles/1/', { ...ALICE, ...JSON_TYPE }, '{"title": "a\\u0000b", "score": 2}'),
  req('PUT', '/api/articles/1/', { ...ALICE, ...JSON_TYPE }, '[1]'),
  req('PUT', '/api/articles/1/', { ...ALICE, ...JSON_TYPE }, 'null'),
  req('PUT', '/api/articles/1/', ALICE),
  req('PUT', '/api/articles/1/', { ...ALICE, ...JSON_TYPE }, '{"title": " Renamed ", "score": "5", "id": 99, "author": "bob", "created": "2030-01-01T00:00:00Z"}'),
  req('GET', '/api/articles/1/'),
  req('PATCH', '/api/articles/1/', { ...ALICE, ...JSON_TYPE }, '{}'),
  req('PATCH', '/api/articles/1/', { ...ALICE, ...JSON_TYPE }, '{"score": 3}'),
  req('PATCH', '/api/articles/1/', { ...ALICE, ...JSON_TYPE }, '{"title": "   "}'),
  req('PATCH', '/api/articles/1/', { ...ALICE, 'Content-Type': 'application/x-www-form-urlencoded' }, 'title=From+a+form'),
  req('PATCH', '/api/articles/1/', { ...ALICE, 'Content-Type': 'text/plain' }, 'x'),
  req('GET', '/api/articles/1/'),
  // A session write needs CSRF; with it, the author writes.
  req('PATCH', '/api/articles/3/', JSON_TYPE, '{"score": 1}', { session: { username: 'alice', csrf: false } }),
  req('PATCH', '/api/articles/3/', JSON_TYPE, '{"score": 1}', { session: { username: 'alice', csrf: true } }),
  req('PATCH', '/api/articles/4/', JSON_TYPE, '{"score": 1}', { session: { username: 'alice', csrf: true } }),
  // OPTIONS: PUT's fields only for the author of an existing article.
  req('OPTIONS', '/api/articles/1/', ALICE),
  req('OPTIONS', '/api/articles/1/', BOB),
  req('OPTIONS', '/api/articles/1/', ADMIN),
  req('OPTIONS', '/api/articles/1/'),
  req('OPTIONS', '/api/articles/998/', ALICE),
  req('OPTIONS', '/api/articles/5/', {}, undefined, { session: { username: 'alice', csrf: false } }),
  // DELETE: the author's is 204; the article is gone after it.
  req('DELETE', '/api/articles/2/', BOB),
  req('GET', '/api/articles/2/'),
  req('DELETE', '/api/articles/2/', BOB),
  req('OPTIONS', '/api/articles/2/', BOB),
]

/** Ids Django's `<int:pk>` does not match: no route. */
const NOT_ROUTED = ['/api/articles/abc/', '/api/articles/-1/', '/api/articles/+1/', '/api/articles/1.0/', '/api/articles/%20/', '/api/articles/%EF%BC%91/', '/api/articles/1/2/', '/api/articles/1']

/** A (masked) answer, `Date` and transport headers left out, for comparing two answers of one server. */
function wire(result: { status: number; headers: Readonly<Record<string, string>>; text: string }): unknown {
  const { date: _date, connection: _connection, 'keep-alive': _keepAlive, ...headers } = result.headers
  return { status: result.status, headers, text: result.text }
}

for (const backend of oracleBackends()) {
  describe.skipIf(unavailable('the DRF oracle (/usr/bin/python3 with python3-djangorestframework)', oracleAvailable()) || backendUnavailable(backend))(`/api/articles/<id>/ matches DRF 3.14 (${backend.name})`, () => {
    let ours: RunningReference
    let oracle: RunningOracle
    const sessions = new Map<string, SessionCookies | null>()

    beforeAll(async () => {
      ;[ours, oracle] = await Promise.all([backend.create().then((database) => startReference(database)), startOracle()])
    }, 90_000)
    afterAll(async () => {
      await Promise.all([ours?.close(), oracle?.close()])
    })

    it('answers every request of the sequence as DRF does', async () => {
      const differences: string[] = []
      for (const request of REQUESTS) {
        const a = comparable(await exchange(ours.baseUrl, request, sessions), request)
        const b = comparable(await exchange(oracle.baseUrl, request, sessions), request)
        if (JSON.stringify(a) !== JSON.stringify(b)) differences.push(`${request.name}\n  ours   ${JSON.stringify(a)}\n  oracle ${JSON.stringify(b)}`)
      }
      expect(differences).toEqual([])
    })

    it('a non-numeric id is no route: the answer of any unknown URL (Django: its 404 page)', async () => {
      const unknown = wire(await send(ours.baseUrl, 'GET', '/api/no-such-route/'))
      for (const path of NOT_ROUTED) {
        for (const method of ['GET', 'PUT', 'OPTIONS']) {
          const a = await send(ours.baseUrl, method, path, ALICE)
          const b = await send(oracle.baseUrl, method, path, ALICE)
          expect([method, path, a.status]).toEqual([method, path, b.status])
          expect([method, path, wire(a)]).toEqual([method, path, wire(await send(ours.baseUrl, method, '/api/no-such-route/', ALICE))])
        }
      }
      expect((unknown as { status: number }).status).toBe(404)
    })

    it("PUT and PATCH check score against PostgreSQL's integer range on every database (documented difference)", async () => {
      for (const method of ['PUT', 'PATCH']) {
        const answer = await send(ours.baseUrl, method, '/api/articles/9/', { ...ALICE, ...JSON_TYPE }, '{"title": "t", "score": 2147483648}')
        expect([method, answer.status, answer.body]).toEqual([method, 400, { score: ['Ensure this value is less than or equal to 2147483647.'] }])
      }
    })

    it('an id past the column is 404 where DRF fails with a 500 on SQLite (documented improvement)', async () => {
      const path = '/api/articles/99999999999999999999999/'
      const theirs = await send(oracle.baseUrl, 'GET', path)
      expect(theirs.status).toBe(500)
      for (const method of ['GET', 'DELETE']) {
        const answer = await send(ours.baseUrl, method, path, BOB)
        expect([method, answer.status, answer.body]).toEqual([method, 404, { detail: 'Not found.' }])
      }
    })
  })
}
