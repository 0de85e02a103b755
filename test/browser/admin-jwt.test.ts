/**
 * A user's JWT refresh tokens on their admin page, in a real browser (Debian's chromium):
 * listed with their status, blacklisted all at once with the page's own form (its CSRF
 * field), after which the API refuses to refresh them; nothing breaks the CSP. Skipped (with
 * the reason) without chromium.
 */
import { describe, expect, it } from 'vitest'
import { chromiumAvailable, useReferenceInChromium } from '../helpers/browser.js'
import { unavailable } from '../helpers/requirements.js'

const available = chromiumAvailable('test/browser/admin-jwt.test.ts')

describe.skipIf(unavailable('a Chromium browser (CHROMIUM_PATH)', available))('JWT refresh tokens on the admin pages, in a browser', () => {
  const running = useReferenceInChromium({ jwt: { signingKey: 'django-insecure-browser-jwt-key-0123456789abcdef' } })

  async function api(path: string, body: unknown): Promise<{ status: number; body: Record<string, string> }> {
    const response = await fetch(`${running.server.baseUrl}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
    return { status: response.status, body: (await response.json()) as Record<string, string> }
  }

  it("lists bob's refresh tokens and blacklists them all: the API then refuses to refresh them", async () => {
    const first = await api('/api/jwt/', { username: 'bob', password: 'bob-pass-2' })
    const second = await api('/api/jwt/', { username: 'bob', password: 'bob-pass-2' })
    expect([first.status, second.status]).toEqual([200, 200])
    const context = await running.browser.newContext()
    const page = await context.newPage()
    await page.addInitScript(() => {
      const seen: string[] = []
      ;(window as unknown as { cspViolations: string[] }).cspViolations = seen
      document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`))
    })
    const base = running.server.baseUrl
    try {
      await page.goto(`${base}/admin/login/`)
      await page.getByLabel('Username').fill('admin')
      await page.getByLabel('Password').fill('admin-pass-4')
      await Promise.all([page.waitForURL(`${base}/admin/`), page.getByRole('button', { name: 'Log in' }).click()])
      await page.goto(`${base}/admin/users/2/`)
      const section = page.locator('section', { has: page.locator('th', { hasText: 'jti' }) })
      expect(await section.locator('tbody tr').count()).toBe(2)
      expect(await section.locator('.tag.on', { hasText: 'outstanding' }).count()).toBe(2)

      await Promise.all([page.waitForURL(/done=jwt-blacklisted/), page.getByRole('button', { name: 'Blacklist all refresh tokens' }).click()])
      expect(await page.locator('.message').textContent()).toContain('refresh tokens were blacklisted')
      expect(await section.locator('.tag.off', { hasText: 'blacklisted' }).count()).toBe(2)
      expect(await page.getByRole('button', { name: 'Blacklist all refresh tokens' }).count()).toBe(0)
      for (const pair of [first, second]) {
        const refused = await api('/api/jwt/refresh/', { refresh: pair.body['refresh'] })
        expect(refused).toEqual({ status: 401, body: { detail: 'Token is blacklisted', code: 'token_not_valid' } })
      }
      expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([])
    } finally {
      await context.close()
    }
  }, 90_000)
})
