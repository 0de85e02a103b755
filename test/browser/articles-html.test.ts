/**
 * A real browser on the HTML page of /api/articles/pages/: the server answers the
 * browser's Accept header with HTML, the numbers controls are clickable, and the
 * next control leads to page 2's articles. Skipped (with the reason) without chromium.
 */
import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshSqlite } from '../helpers/databases.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium'
const available = existsSync(CHROMIUM)
if (!available) console.warn(`test/browser/articles-html.test.ts skipped: no chromium at ${CHROMIUM} (set CHROMIUM_PATH)`)

describe.skipIf(!available)('articles HTML page in a browser', () => {
  let server: RunningReference
  let browser: Browser

  beforeAll(async () => {
    server = await startReference(freshSqlite())
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  it('clicks the next control of the numbers controls and sees page 2', async () => {
    const page = await browser.newPage()
    try {
      const response = await page.goto(`${server.baseUrl}/api/articles/pages/`)
      expect(response?.headers()['content-type']).toBe('text/html; charset=utf-8')
      await expect(page.title()).resolves.toBe('Article Pages')
      const body = page.locator('pre.response-body')
      expect(await body.textContent()).toContain('Article 010')
      expect(await body.textContent()).not.toContain('Article 011')
      expect(await page.locator('ul.pagination li.active').textContent()).toContain('1')

      await Promise.all([page.waitForURL(/page=2/), page.locator('ul.pagination a[aria-label="Next"]').click()])
      expect(page.url()).toBe(`${server.baseUrl}/api/articles/pages/?page=2`)
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
    const page = await browser.newPage()
    try {
      await page.goto(`${server.baseUrl}/api/articles/cursor/`)
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
})
