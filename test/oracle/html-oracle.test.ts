/**
 * The HTML answers of gatehouse's reference API against DRF 3.14's browsable API: the
 * same `Accept: text/html` requests (test/oracle/html-requests.ts) to both, on SQLite and
 * on PostgreSQL. Compared: the status; the sent Content-Type, Allow, WWW-Authenticate and
 * Retry-After headers and whether Vary names Accept; and, on an HTML page, what the page
 * shows of the answer: its status line (`HTTP 401 Unauthorized`), its header lines and the
 * JSON (tags such as DRF's `<a>` links stripped, entities decoded, parsed; the origin,
 * generated tokens, CSRF values and creation times masked). A JSON answer (a failed
 * negotiation) is compared as JSON. Documented differences, not compared: DRF's page also
 * holds forms and sets a `csrftoken` cookie (so Django always adds `Vary: Cookie`);
 * gatehouse's page holds no forms but a list's filter panel, and sends security headers instead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { oracleBackends } from '../helpers/databases.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { exchange, maskBody, type ExchangeRequest, type ExchangeResult, type SessionCookies } from './http-exchange.js'
import { HTML_REQUESTS } from './html-requests.js'
import { oracleAvailable, startOracle, type RunningOracle } from './oracle-server.js'
import { backendUnavailable, unavailable } from '../helpers/requirements.js'

const drfInstalled = oracleAvailable()

const ENTITIES: Readonly<Record<string, string>> = { quot: '"', amp: '&', lt: '<', gt: '>', apos: "'" }

/** Decodes the character references Django's and gatehouse's escaping write. */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,4});/gi, (whole, ref: string) => {
    if (ref.startsWith('#x') || ref.startsWith('#X')) return String.fromCodePoint(parseInt(ref.slice(2), 16))
    if (ref.startsWith('#')) return String.fromCodePoint(parseInt(ref.slice(1), 10))
    return ENTITIES[ref.toLowerCase()] ?? whole
  })
}

/** What an HTML page shows of the answer: its status line, header lines and JSON. */
export interface ShownAnswer {
  readonly statusLine: string
  readonly headers: readonly string[]
  readonly json: unknown
}

/**
 * Reads the `response-info` block of a page (DRF's and gatehouse's use the same class):
 * tags stripped, entities decoded; the status line and headers up to the first blank
 * line, then the JSON (or `''` for none).
 */
export function shownAnswer(html: string): ShownAnswer | null {
  const start = html.indexOf('<div class="response-info"')
  if (start === -1) return null
  const end = html.indexOf('</div>', start)
  const text = decodeEntities(html.slice(start, end).replace(/<[^>]*>/g, '')).trim()
  const blank = text.indexOf('\n\n')
  const head = (blank === -1 ? text : text.slice(0, blank)).split('\n').map((line) => line.trim())
  const body = blank === -1 ? '' : text.slice(blank).trim()
  return { statusLine: head[0] ?? '', headers: head.slice(1), json: body === '' ? '' : (JSON.parse(body) as unknown) }
}

/** Masks what legitimately differs between the servers: origin, cursors, tokens, CSRF values, creation times. */
function maskValue(value: unknown, origin: string): unknown {
  const text = JSON.stringify(maskBody(value))
    .split(origin)
    .join('http://host')
    .replace(/cursor=[^&"<>]*/g, 'cursor=*')
  return JSON.parse(text, (key, v: unknown) => (key === 'created' && typeof v === 'string' && !v.startsWith('2024-01-01') ? '<now>' : v)) as unknown
}

function comparableHtml(result: ExchangeResult, request: ExchangeRequest, origin: string): Record<string, unknown> {
  if (request.statusOnly === true) return { status: result.status }
  const contentType = (result.headers['content-type'] ?? '').split(';')[0] ?? ''
  const shown = contentType === 'text/html' ? shownAnswer(result.text) : null
  return {
    status: result.status,
    'content-type': contentType === '' ? null : contentType,
    allow: result.headers['allow'] ?? null,
    'www-authenticate': result.headers['www-authenticate'] ?? null,
    'retry-after': result.headers['retry-after'] ?? null,
    'vary-accept': /(^|,)\s*accept\s*(,|$)/i.test(result.headers['vary'] ?? ''),
    // HEAD: no page; HTML: what the page shows; else the JSON body.
    shown: result.text === '' ? '' : shown === null ? maskValue(result.body, origin) : maskValue(shown, origin),
  }
}

for (const backend of oracleBackends()) {
  describe.skipIf(unavailable('the DRF oracle (python3 with Django and DRF)', drfInstalled) || backendUnavailable(backend))(`HTML answers match DRF's browsable API (${backend.name})`, () => {
    let ours: RunningReference
    let oracle: RunningOracle
    const sessions = new Map<string, SessionCookies | null>()

    beforeAll(async () => {
      ;[ours, oracle] = await Promise.all([backend.create().then((db) => startReference(db)), startOracle()])
    }, 90_000)
    afterAll(async () => {
      await Promise.all([ours?.close(), oracle?.close()])
    })

    it(`${HTML_REQUESTS.length} requests with Accept: text/html: same status, headers and shown JSON`, async () => {
      const mismatches: string[] = []
      let pages = 0
      for (const request of HTML_REQUESTS) {
        const [a, b] = await Promise.all([exchange(ours.baseUrl, request, sessions), exchange(oracle.baseUrl, request, sessions)])
        const x = comparableHtml(a, request, ours.baseUrl)
        const y = comparableHtml(b, request, oracle.baseUrl)
        if (typeof x['shown'] === 'object' && x['shown'] !== null && 'statusLine' in x['shown']) pages += 1
        if (JSON.stringify(x) !== JSON.stringify(y)) {
          mismatches.push(`${request.name}\n  ours:   ${JSON.stringify(x).slice(0, 1200)}\n  oracle: ${JSON.stringify(y).slice(0, 1200)}`)
        }
      }
      expect(mismatches.join('\n')).toBe('')
      // The comparison really read pages (a broken extraction would compare nothing).
      expect(pages).toBeGreaterThan(60)
    }, 120_000)

    it('sends the security headers on every HTML page, errors included', async () => {
      for (const path of ['/api/private/', '/api/articles/?page=99', '/api/whoami/']) {
        const result = await exchange(ours.baseUrl, { name: path, method: 'GET', path, headers: { Accept: 'text/html' } }, sessions)
        expect(result.headers['content-type']).toBe('text/html; charset=utf-8')
        expect(result.headers['x-content-type-options']).toBe('nosniff')
        expect(result.headers['x-frame-options']).toBe('DENY')
        expect(result.headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-/)
      }
    })
  })
}
