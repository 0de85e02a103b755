import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonResponse } from '../api-response.js'
import { renderBrowsablePage, statusLine } from './browsable-page.js'

/** What the page shows, read back as a browser's textContent would: tags dropped, references decoded. */
function shownText(html: string, cls: string): string {
  const open = `<pre class="${cls}">`
  const start = html.indexOf(open) + open.length
  return html
    .slice(start, html.indexOf('</pre>', start))
    .replace(/<[^>]*>/g, '')
    .replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)))
}

const page = (body: unknown, headers: [string, string][] = [], path = '/api/x/?a=1'): string =>
  String(renderBrowsablePage({ title: 'T', method: 'GET', url: new URL(`http://localhost${path}`), response: jsonResponse(200, body, headers) }).body)

// Strings rich in markup, quotes, ampersands and URL-like runs.
const tricky = fc.string({ unit: fc.oneof(fc.constantFrom('<', '>', '&', '"', "'", '/', ':', 'http://', 'https://x.y/?a=1&b=', '#38;', ' ', '\n', 'é', '\u2028'), fc.string({ minLength: 1, maxLength: 1 })), maxLength: 40 })
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, tricky, fc.integer(), fc.boolean(), fc.constant(null), fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(tricky, tie('value'), { maxKeys: 4 })),
})).value

describe('the core HTML page', () => {
  it('shows any JSON body exactly (it parses back to the same value) and never lets its markup through', () => {
    fc.assert(
      // A top-level string is taken as already serialised (as `serializeBody` sends it).
      fc.property(json.filter((body) => typeof body !== 'string'), (body) => {
        const html = page(body)
        expect(JSON.parse(shownText(html, 'response-body'))).toEqual(JSON.parse(JSON.stringify(body)))
        // The only elements inside the body block are the links linkify adds.
        const block = html.slice(html.indexOf('<pre class="response-body">'), html.indexOf('</pre></div>'))
        for (const tag of block.match(/<[^>]*>/g) ?? []) expect(tag).toMatch(/^(<pre class="response-body">|<a href="https?:\/\/[^"<>]*" rel="nofollow">|<\/a>)$/)
      }),
    )
  })

  it('shows header values exactly, never their markup; the request path is escaped', () => {
    fc.assert(
      fc.property(tricky, (value) => {
        const clean = value.replace(/[\r\n]/g, ' ')
        const html = page({}, [['X-Thing', clean]], `/api/${encodeURIComponent(clean)}/`)
        expect(shownText(html, 'response-headers').split('\n')).toContain(`X-Thing: ${clean}`)
        expect(html).not.toContain('<script')
      }),
    )
  })

  it('shows DRF\'s status line and the sorted headers, Content-Type as application/json, never Set-Cookie; a 204 is sent as 200', () => {
    expect(statusLine(413)).toBe('HTTP 413 Request Entity Too Large')
    expect(statusLine(599)).toBe('HTTP 599 ')
    const response = renderBrowsablePage({
      title: 'T',
      method: 'POST',
      url: new URL('http://localhost/api/logout/'),
      response: { status: 204, headers: [['Set-Cookie', 'sessionid=; Max-Age=0'], ['X-B', '2']], body: undefined },
      shownHeaders: [['Allow', 'POST, OPTIONS'], ['Vary', 'Accept']],
    })
    expect(response.status).toBe(200)
    expect(response.headers).toContainEqual(['Set-Cookie', 'sessionid=; Max-Age=0'])
    expect(response.headers.some(([name]) => name === 'Allow' || name === 'Vary')).toBe(false)
    expect(shownText(String(response.body), 'response-headers')).toBe('HTTP 204 No Content\nAllow: POST, OPTIONS\nContent-Type: application/json\nVary: Accept\nX-B: 2\n')
    expect(shownText(String(response.body), 'response-body')).toBe('')
  })
})

describe('the page of a response with security headers of its own (the admin redirect)', () => {
  it('sends each header once, the response\'s value winning, so no adapter has to merge repeats', () => {
    const response = {
      status: 302,
      headers: [
        ['Location', '/admin/'],
        ['X-Content-Type-Options', 'nosniff'],
        ['x-frame-options', 'DENY'],
        ['Content-Security-Policy', "default-src 'none'"],
      ] as const,
      body: undefined,
    }
    const page = renderBrowsablePage({ title: 'Admin', method: 'GET', url: new URL('http://x/admin/login/'), response })
    const names = page.headers.map(([name]) => name.toLowerCase())
    expect(names.length).toBe(new Set(names).size)
    expect(page.headers.find(([name]) => name === 'Content-Security-Policy')?.[1]).toBe("default-src 'none'")
    expect(names).toEqual(['content-type', 'location', 'x-content-type-options', 'x-frame-options', 'content-security-policy'])
  })
})

function pageWith(body: unknown) {
  return renderBrowsablePage({
    title: 'Articles',
    method: 'GET',
    url: new URL('http://localhost/api/articles/?page=2&page_size=3'),
    response: jsonResponse(200, body),
    controls: null,
  })
}

describe('renderBrowsablePage', () => {
  it('sends nosniff, DENY and a CSP that allows only the inline style, by its hash', () => {
    const headers = new Map(pageWith({}).headers.map(([name, value]) => [name.toLowerCase(), value]))
    expect(headers.get('x-content-type-options')).toBe('nosniff')
    expect(headers.get('x-frame-options')).toBe('DENY')
    const csp = headers.get('content-security-policy') ?? ''
    expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]{43}='/)
    expect(csp).not.toContain('unsafe')
    expect(csp).not.toContain('script-src')
  })

  it('links URLs with several query parameters (escaped & is &#38;)', () => {
    const next = 'http://localhost/api/articles/?page=3&page_size=3&author=bob'
    const html = String(pageWith({ next }).body)
    expect(html).toContain(`<a href="${next.replaceAll('&', '&#38;')}" rel="nofollow">`)
  })

  it('never lets markup inside a URL-like string through', () => {
    const html = String(pageWith({ next: 'http://x/"><script>alert(1)</script>' }).body)
    expect(html).not.toContain('<script>')
    expect(html).toContain('&#60;script&#62;')
  })
})
