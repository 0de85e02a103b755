/**
 * A real browser on the HTML error pages of the reference API: a 401, a 403 and a 404
 * (invalid page) come back as pages with the same status, showing DRF's status line, the
 * headers and the JSON error; the security headers hold and the page's CSP reports no
 * violation. Skipped (with the reason) without chromium.
 */
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { chromiumAvailable, useReferenceInChromium } from '../helpers/browser.js'
import { unavailable } from '../helpers/requirements.js'

const available = chromiumAvailable('test/browser/error-pages-html.test.ts')

describe.skipIf(unavailable('a Chromium browser (CHROMIUM_PATH)', available))('HTML error pages in a browser', () => {
  const running = useReferenceInChromium()

  /** Opens `path` with a listener for CSP violations installed before the page's own markup. */
  async function open(path: string, headers: Record<string, string> = {}): Promise<{ page: Page; status: number; headers: Record<string, string>; violations: () => Promise<string[]> }> {
    const page = await running.browser.newPage({ extraHTTPHeaders: headers })
    await page.addInitScript(() => {
      const seen: string[] = []
      ;(window as unknown as { cspViolations: string[] }).cspViolations = seen
      document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`))
    })
    const response = await page.goto(`${running.server.baseUrl}${path}`)
    return {
      page,
      status: response?.status() ?? 0,
      headers: response?.headers() ?? {},
      violations: () => page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations),
    }
  }

  it.each([
    ['/api/private/', 401, 'Private', 'Authentication credentials were not provided.', 'WWW-Authenticate: Token', {}],
    ['/api/staff/', 403, 'Staff', 'You do not have permission to perform this action.', 'Allow: GET, HEAD, OPTIONS', { Authorization: 'Token b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0' }],
    ['/api/articles/?page=99', 404, 'Article List', 'Invalid page.', 'Vary: Accept', {}],
  ] as const)('%s: the %i page shows the error JSON under the CSP with no violation', async (path, status, title, detail, shownHeader, headers) => {
    const { page, status: sent, headers: sentHeaders, violations } = await open(path, headers)
    try {
      expect(sent).toBe(status)
      expect(sentHeaders['content-type']).toBe('text/html; charset=utf-8')
      expect(sentHeaders['x-content-type-options']).toBe('nosniff')
      expect(sentHeaders['x-frame-options']).toBe('DENY')
      expect(sentHeaders['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-/)
      await expect(page.title()).resolves.toBe(title)
      const head = (await page.locator('pre.response-headers').textContent()) ?? ''
      const reason = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' }[status]
      expect(head.split('\n')[0]).toBe(`HTTP ${status} ${reason}`)
      expect(head).toContain(shownHeader)
      expect(JSON.parse((await page.locator('pre.response-body').textContent()) ?? '')).toEqual({ detail })
      // The inline style applies (allowed by its hash), and nothing was refused.
      expect(await page.evaluate(() => getComputedStyle(document.querySelector('pre.response-body') as Element).backgroundColor)).toBe('rgb(246, 246, 246)')
      expect(await violations()).toEqual([])
    } finally {
      await page.close()
    }
  })
})
