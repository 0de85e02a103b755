/**
 * The reference API's HTML pages end to end, on SQLite and PostgreSQL, on the framework
 * of this vitest project: what the DRF oracle cannot show (it has no failed-login
 * throttle): a 429 page keeping `Retry-After`, sent and shown, and a created article's
 * 201 page; plus the HTML answers that must stay JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS } from '../helpers/databases.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { backendUnavailable } from '../helpers/requirements.js'

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`

/** The response-info block of a page, tags stripped and the escaping undone. */
function shown(html: string): string {
  const start = html.indexOf('<div class="response-info">')
  return html
    .slice(start, html.indexOf('</div>', start))
    .replace(/<[^>]*>/g, '')
    .replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)))
}

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`HTML pages of the reference API (${backend.name})`, () => {
    let server: RunningReference

    beforeAll(async () => {
      server = await startReference(await backend.create(), { loginFailures: '2/min' })
    }, 60_000)
    afterAll(async () => {
      await server?.close()
    })

    it('a throttled Basic request is a 429 page with Retry-After, sent and shown', async () => {
      const headers = { Accept: 'text/html', Authorization: basic('alice', 'wrong') }
      for (let i = 0; i < 2; i++) expect((await fetch(`${server.baseUrl}/api/whoami/`, { headers })).status).toBe(401)
      const response = await fetch(`${server.baseUrl}/api/whoami/`, { headers: { ...headers, Authorization: basic('alice', 'alice-pass-1') } })
      const html = await response.text()
      expect(response.status).toBe(429)
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(response.headers.get('x-frame-options')).toBe('DENY')
      const wait = response.headers.get('retry-after') ?? ''
      expect(wait).toMatch(/^[1-9][0-9]*$/)
      const text = shown(html)
      expect(text.split('\n')[0]).toBe('HTTP 429 Too Many Requests')
      expect(text).toContain(`\nRetry-After: ${wait}\n`)
      expect(text).toMatch(/"detail": "Request was throttled\. Expected available in \d+ seconds?\."/)
    })

    it('a created article is a 201 page showing the new article; the list shows it', async () => {
      const response = await fetch(`${server.baseUrl}/api/articles/`, {
        method: 'POST',
        headers: { Accept: 'text/html', 'Content-Type': 'application/x-www-form-urlencoded', Authorization: 'Token b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0' },
        body: 'title=From+a+browser&score=3',
      })
      expect(response.status).toBe(201)
      const text = shown(await response.text())
      expect(text.split('\n')[0]).toBe('HTTP 201 Created')
      const json = JSON.parse(text.slice(text.indexOf('\n\n'))) as Record<string, unknown>
      expect(json).toMatchObject({ id: 138, title: 'From a browser', author: 'bob', score: 3 })
      const list = await fetch(`${server.baseUrl}/api/articles/?page=last`, { headers: { Accept: 'text/html' } })
      expect(shown(await list.text())).toContain('"title": "From a browser"')
    })

    it('the token endpoint and a failed negotiation answer JSON', async () => {
      const token = await fetch(`${server.baseUrl}/api/auth/token/`, {
        method: 'POST',
        headers: { Accept: 'text/html', 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: 'bob', password: 'bob-pass-2' }),
      })
      expect([token.status, token.headers.get('content-type'), await token.json()]).toEqual([406, 'application/json', { detail: 'Could not satisfy the request Accept header.' }])
      const format = await fetch(`${server.baseUrl}/api/private/?format=json`, { headers: { Accept: 'text/html' } })
      expect([format.status, format.headers.get('content-type'), format.headers.get('vary')]).toEqual([406, 'application/json', 'Accept'])
      await format.text()
    })
  })
}
