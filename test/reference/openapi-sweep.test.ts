/**
 * Every operation of the reference API's document and its error cases, over a real socket,
 * with failed-login throttling on: anonymous, a good and a bad token, an Accept it cannot
 * render (406), an unknown `?format=` (404), a method the path does not list (405), bodies
 * of the wrong media type (415), malformed (400) and invalid (400), then Basic past the
 * failed-login budget (429 with Retry-After). Each answer is checked against the document
 * with a JSON-schema validator (status, media type, required headers, body).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshSqlite } from '../helpers/databases.js'
import { OpenApiAnswers } from '../helpers/openapi-answers.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'

type Json = Record<string, unknown>
const BOB = { Authorization: 'Token b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0' }
const BOB_BASIC = { Authorization: `Basic ${btoa('bob:bob-pass-2')}` }
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']

describe('every operation and its error cases answer as the document says', () => {
  let server: RunningReference
  let doc: Json
  let checker: OpenApiAnswers
  const problems: string[] = []
  const seen = new Map<number, number>()

  beforeAll(async () => {
    server = await startReference(freshSqlite(), { loginFailures: '5/min' })
    doc = (await (await fetch(`${server.baseUrl}/api/openapi.json`)).json()) as Json
    checker = new OpenApiAnswers(doc)
  }, 60_000)
  afterAll(async () => {
    await server?.close()
  })

  /** Sends one request and checks its answer against the document; returns the status. */
  async function send(method: string, path: string, init: { headers?: Record<string, string>; body?: string; query?: string } = {}): Promise<Response> {
    const res = await fetch(`${server.baseUrl}${path}${init.query ?? ''}`, { method, headers: init.headers ?? {}, ...(init.body === undefined ? {} : { body: init.body }) })
    const body = await res.text()
    problems.push(...checker.problems({ method, path, status: res.status, headers: res.headers, body }))
    seen.set(res.status, (seen.get(res.status) ?? 0) + 1)
    return res
  }

  const operations = (): { method: string; template: string; path: string; op: Json }[] =>
    Object.entries(doc['paths'] as Record<string, Record<string, Json>>).flatMap(([template, item]) =>
      Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), template, path: template.replace(/\{[^}]+\}/g, '1'), op })),
    )

  it('answers every operation and error case as documented, 405, 406, 415 and 429 included', async () => {
    for (const { method, path, op } of operations()) {
      await send(method, path)
      await send(method, path, { headers: BOB })
      await send(method, path, { headers: { Authorization: 'Token nope' } })
      await send(method, path, { headers: { Authorization: 'Basic !!' } })
      await send(method, path, { headers: { ...BOB, Accept: 'application/xml' } })
      await send(method, path, { headers: BOB, query: '?format=nope' })
      if (op['requestBody'] !== undefined) {
        await send(method, path, { headers: { ...BOB, 'Content-Type': 'text/plain' }, body: 'x' })
        await send(method, path, { headers: { ...BOB, 'Content-Type': 'application/json' }, body: '{' })
        await send(method, path, { headers: { ...BOB, 'Content-Type': 'application/json' }, body: '{}' })
        await send(method, path, { headers: { ...BOB, 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'name=&title=&username=' })
      }
    }
    for (const [template, item] of Object.entries(doc['paths'] as Record<string, Json>)) {
      const unlisted = METHODS.find((m) => item[m.toLowerCase()] === undefined)
      if (unlisted !== undefined) await send(unlisted, template.replace(/\{[^}]+\}/g, '1'), { headers: BOB })
    }
    await send('POST', '/api/articles/', { headers: { ...BOB, 'Content-Type': 'application/json' }, body: '{"title": "Swept", "score": 2}' })
    await send('DELETE', '/api/auth/tokens/abc/', { headers: BOB })
    await send('GET', '/api/articles/', { query: '?page=0' })
    await send('GET', '/api/articles/cursor/', { query: '?cursor=x' })
    for (let i = 0; i < 7; i++) await send('POST', '/api/auth/token/throttled/', { headers: { 'Content-Type': 'application/json' }, body: '{"username":"bob","password":"bob-pass-2"}' })

    // Past bob's failed-login budget from this address (counted per username and client),
    // every operation a Basic header for bob reaches answers 429.
    for (let i = 0; i < 6; i++) await send('GET', '/api/whoami/', { headers: { Authorization: `Basic ${btoa(`bob:guess-${i}`)}` } })
    for (const { method, path, op } of operations()) {
      const res = await send(method, path, { headers: BOB_BASIC })
      const viaBasic = (op['security'] as Json[]).some((requirement) => Object.hasOwn(requirement, 'basicAuth'))
      expect(res.status === 429, `${method} ${path}`).toBe(viaBasic)
      if (viaBasic) expect(Number(res.headers.get('Retry-After'))).toBeGreaterThan(0)
    }

    expect(problems).toEqual([])
    for (const status of [200, 201, 204, 400, 401, 403, 404, 405, 406, 415, 429]) expect(seen.get(status) ?? 0, String(status)).toBeGreaterThan(0)
  }, 120_000)

  it('checks for real: an answer the document does not list is reported', () => {
    const headers = new Headers({ 'Content-Type': 'application/json' })
    expect(checker.problems({ method: 'GET', path: '/api/whoami/', status: 200, headers, body: '{"username": 7}' })).toHaveLength(1)
    expect(checker.problems({ method: 'GET', path: '/api/whoami/', status: 415, headers, body: '{"detail": "x"}' })).toHaveLength(1)
    expect(checker.problems({ method: 'GET', path: '/api/whoami/', status: 200, headers: new Headers({ 'Content-Type': 'text/html' }), body: '<p>' })).toHaveLength(1)
    expect(checker.problems({ method: 'PUT', path: '/api/whoami/', status: 405, headers, body: '{"detail": "Method \\"PUT\\" not allowed."}' })).toHaveLength(1) // no Allow
    expect(checker.problems({ method: 'GET', path: '/api/nowhere/', status: 404, headers, body: '{}' })).toHaveLength(1)
  })
})
