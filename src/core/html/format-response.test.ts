import { describe, expect, it } from 'vitest'
import { jsonResponse } from '../api-response.js'
import { renderBrowsablePage } from './format-response.js'

function page(body: unknown) {
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
    const headers = new Map(page({}).headers.map(([name, value]) => [name.toLowerCase(), value]))
    expect(headers.get('x-content-type-options')).toBe('nosniff')
    expect(headers.get('x-frame-options')).toBe('DENY')
    const csp = headers.get('content-security-policy') ?? ''
    expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]{43}='/)
    expect(csp).not.toContain('unsafe')
    expect(csp).not.toContain('script-src')
  })

  it('links URLs with several query parameters (escaped & is &#38;)', () => {
    const next = 'http://localhost/api/articles/?page=3&page_size=3&author=bob'
    const html = String(page({ next }).body)
    expect(html).toContain(`<a href="${next.replaceAll('&', '&#38;')}" rel="nofollow">`)
  })

  it('never lets markup inside a URL-like string through', () => {
    const html = String(page({ next: 'http://x/"><script>alert(1)</script>' }).body)
    expect(html).not.toContain('<script>')
    expect(html).toContain('&#60;script&#62;')
  })
})
