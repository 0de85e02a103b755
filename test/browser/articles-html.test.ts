/**
 * A real browser on the HTML page of /api/articles/pages/: the server answers the
 * browser's Accept header with HTML, the numbers controls are clickable, and the
 * next control leads to page 2's articles; under the page's security headers (CSP by
 * hash) the inline style is applied and nothing is reported as a violation.
 * Skipped (with the reason) without chromium.
 */
import { describe, expect, it } from 'vitest'
import { chromiumAvailable, useReferenceInChromium } from '../helpers/browser.js'
import { unavailable } from '../helpers/requirements.js'

const available = chromiumAvailable('test/browser/articles-html.test.ts')

describe.skipIf(unavailable('a Chromium browser (CHROMIUM_PATH)', available))('articles HTML page in a browser', () => {
  const running = useReferenceInChromium()

  it('clicks the next control of the numbers controls and sees page 2', async () => {
    const page = await running.browser.newPage()
    try {
      const response = await page.goto(`${running.server.baseUrl}/api/articles/pages/`)
      expect(response?.headers()['content-type']).toBe('text/html; charset=utf-8')
      await expect(page.title()).resolves.toBe('Article Pages')
      const body = page.locator('pre.response-body')
      expect(await body.textContent()).toContain('Article 010')
      expect(await body.textContent()).not.toContain('Article 011')
      expect(await page.locator('ul.pagination li.active').textContent()).toContain('1')

      await Promise.all([page.waitForURL(/page=2/), page.locator('ul.pagination a[aria-label="Next"]').click()])
      expect(page.url()).toBe(`${running.server.baseUrl}/api/articles/pages/?page=2`)
      const text = (await page.locator('pre.response-body').textContent()) ?? ''
      expect(text).toContain('Article 011')
      expect(text).toContain('Article 020')
      expect(text).not.toContain('Article 010')
      expect(await page.locator('ul.pagination li.active').textContent()).toContain('2')

      // The numbered control for the last page works too.
      await Promise.all([page.waitForURL(/page=14/), page.locator('ul.pagination a', { hasText: '14' }).click()])
      expect(await page.locator('pre.response-body').textContent()).toContain('Article 137')
      expect(await page.locator('ul.pagination li.disabled a[aria-label="Next"]').count()).toBe(1)
    } finally {
      await page.close()
    }
  })

  it('walks the cursor route with the previous/next controls', async () => {
    const page = await running.browser.newPage()
    try {
      await page.goto(`${running.server.baseUrl}/api/articles/cursor/`)
      expect(await page.locator('pre.response-body').textContent()).toContain('Article 137')
      await Promise.all([page.waitForURL(/cursor=/), page.locator('ul.pager li.next a').click()])
      const second = (await page.locator('pre.response-body').textContent()) ?? ''
      expect(second).toContain('Article 127')
      expect(second).not.toContain('Article 137')
      await Promise.all([page.waitForURL(/cursor=/), page.locator('ul.pager li.previous a').click()])
      expect(await page.locator('pre.response-body').textContent()).toContain('Article 137')
    } finally {
      await page.close()
    }
  })

  it('sends nosniff, DENY and the CSP, and under that CSP the inline style applies with no violation', async () => {
    const page = await running.browser.newPage()
    const consoleCsp: string[] = []
    page.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) consoleCsp.push(message.text())
    })
    // Runs before the page's own markup (injected by the browser, outside the page's CSP).
    await page.addInitScript(() => {
      const seen: string[] = []
      ;(window as unknown as { cspViolations: string[] }).cspViolations = seen
      document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`))
    })
    const violations = (): Promise<string[]> => page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)
    try {
      const response = await page.goto(`${running.server.baseUrl}/api/articles/pages/`)
      const headers = response?.headers() ?? {}
      expect(headers['x-content-type-options']).toBe('nosniff')
      expect(headers['x-frame-options']).toBe('DENY')
      const csp = headers['content-security-policy'] ?? ''
      expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]{43}='; base-uri 'none'; form-action 'self'; frame-ancestors 'none'$/)

      // The inline <style> is allowed by its hash: its rules are really in effect.
      const style = await page.evaluate(() => {
        const computed = (selector: string): CSSStyleDeclaration => getComputedStyle(document.querySelector(selector) as Element)
        return {
          listDisplay: computed('ul.pagination').display,
          activeBackground: computed('ul.pagination li.active a').backgroundColor,
          preBackground: computed('pre.response-body').backgroundColor,
        }
      })
      expect(style).toEqual({ listDisplay: 'flex', activeBackground: 'rgb(44, 110, 189)', preBackground: 'rgb(246, 246, 246)' })
      expect(await violations()).toEqual([])
      expect(consoleCsp).toEqual([])

      // The listener does catch what the CSP refuses: a style not matching the hash is blocked and reported.
      await page.evaluate(() => {
        const injected = document.createElement('style')
        injected.textContent = 'body{background:rgb(255,0,0)}'
        document.head.append(injected)
      })
      await expect.poll(violations).toEqual([expect.stringMatching(/^style-src(-elem)? inline$/)])
      expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).not.toBe('rgb(255, 0, 0)')
    } finally {
      await page.close()
    }
  })
})
