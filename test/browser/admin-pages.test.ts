/**
 * The administration pages in a real browser (Debian's chromium): log in as staff, regenerate
 * a user's token (the key shown once), create a user and their token, revoke a named token,
 * deactivate a user, and see the API refuse those keys at once; the stylesheet applies under
 * the CSP and nothing is reported as a violation. With `ADMIN_SCREENSHOTS=<folder>` the
 * pages are saved there as PNGs (docs/admin.md's pictures: `ADMIN_SCREENSHOTS=docs`).
 * Skipped (with the reason) without chromium.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, describe, expect, it } from 'vitest'
import { chromiumAvailable, useReferenceInChromium } from '../helpers/browser.js'
import { unavailable } from '../helpers/requirements.js'

const available = chromiumAvailable('test/browser/admin-pages.test.ts')
const BOB_KEY = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'

const shotsDir = process.env['ADMIN_SCREENSHOTS'] ?? mkdtempSync(join(tmpdir(), 'gatehouse-admin-shots-'))
afterAll(() => {
  if (process.env['ADMIN_SCREENSHOTS'] === undefined) rmSync(shotsDir, { recursive: true, force: true })
})

describe.skipIf(unavailable('a Chromium browser (CHROMIUM_PATH)', available))('admin pages in a browser', () => {
  const running = useReferenceInChromium()

  async function apiStatus(key: string): Promise<number> {
    const response = await fetch(`${running.server.baseUrl}/api/whoami/`, { headers: { Authorization: `Token ${key}`, Accept: 'application/json' } })
    await response.arrayBuffer()
    return response.status
  }

  async function shot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: join(shotsDir, `admin-${name}.png`), fullPage: true })
  }

  it('logs in, regenerates and creates tokens, revokes a named token, deactivates a user: the API refuses their keys at once', async () => {
    const context = await running.browser.newContext({ viewport: { width: 1100, height: 760 } })
    const page = await context.newPage()
    await page.addInitScript(() => {
      const seen: string[] = []
      ;(window as unknown as { cspViolations: string[] }).cspViolations = seen
      document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`))
    })
    const violations = (): Promise<string[]> => page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)
    const base = running.server.baseUrl
    try {
      // Not logged in: sent to the login form.
      await page.goto(`${base}/admin/`)
      expect(new URL(page.url()).pathname).toBe('/admin/login/')
      await page.getByLabel('Username').fill('admin')
      await page.getByLabel('Password').fill('admin-pass-4')
      await shot(page, 'login')
      await Promise.all([page.waitForURL(`${base}/admin/`), page.getByRole('button', { name: 'Log in' }).click()])
      await expect(page.title()).resolves.toContain('Users')
      expect(await page.locator('table tbody tr').count()).toBe(4)
      // The stylesheet applies (style-src 'self'), and nothing was refused.
      expect(await page.evaluate(() => getComputedStyle(document.querySelector('header.bar') as Element).backgroundColor)).toBe('rgb(38, 75, 140)')
      await shot(page, 'users')

      // Search.
      await page.getByLabel('Search usernames').fill('bo')
      await Promise.all([page.waitForURL(/q=bo/), page.getByRole('button', { name: 'Search' }).click()])
      expect(await page.locator('table tbody tr').count()).toBe(1)

      // bob: regenerate his token; the key is on that page only.
      expect(await apiStatus(BOB_KEY)).toBe(200)
      await running.server.ref.namedTokens.create(2, { name: 'ci-runner', expiresIn: 86_400 })
      const named = await running.server.ref.namedTokens.create(2, { name: 'laptop' })
      await Promise.all([page.waitForURL(/\/admin\/users\/2\/$/), page.getByRole('link', { name: 'bob' }).click()])
      expect(await page.locator('body').textContent()).not.toContain(BOB_KEY)
      await shot(page, 'user')
      await Promise.all([page.waitForURL(/\/admin\/users\/2\/token\/$/), page.getByRole('button', { name: 'Regenerate the token' }).click()])
      const key = (await page.locator('#token-key').textContent()) ?? ''
      expect(key).toMatch(/^[0-9a-f]{40}$/)
      expect(page.url()).not.toContain(key)
      await shot(page, 'token')
      expect(await apiStatus(BOB_KEY)).toBe(401)
      expect(await apiStatus(key)).toBe(200)

      // Back on bob's page: the date, not the key; revoke the named token "laptop".
      await Promise.all([page.waitForURL(/\/admin\/users\/2\/$/), page.getByRole('link', { name: 'Back to bob' }).click()])
      expect(await page.locator('body').textContent()).not.toContain(key)
      expect(await apiStatus(named.key)).toBe(200)
      const laptop = page.locator('tr', { hasText: 'laptop' })
      await Promise.all([page.waitForURL(/done=revoked/), laptop.getByRole('button', { name: 'Revoke' }).click()])
      expect(await page.locator('.message').textContent()).toContain('The named token was revoked.')
      expect(await apiStatus(named.key)).toBe(401)

      // Deactivate bob: his new key is refused at once.
      await Promise.all([page.waitForURL(/done=deactivated/), page.getByRole('button', { name: 'Deactivate' }).click()])
      expect(await page.locator('.tag.off').first().textContent()).toBe('inactive')
      expect(await apiStatus(key)).toBe(401)

      // A new user, and their first token.
      await page.goto(`${base}/admin/users/add/`)
      await page.getByLabel('Username').fill('erin')
      await page.getByLabel('Password', { exact: true }).fill('erin-pass-5')
      await page.getByLabel('Password (again)').fill('erin-pass-5')
      await shot(page, 'add-user')
      await Promise.all([page.waitForURL(/done=created/), page.getByRole('button', { name: 'Create the user' }).click()])
      expect(await page.locator('.message').textContent()).toContain('The user was created.')
      await Promise.all([page.waitForURL(/\/token\/$/), page.getByRole('button', { name: 'Create a token' }).click()])
      const erinKey = (await page.locator('#token-key').textContent()) ?? ''
      expect(await apiStatus(erinKey)).toBe(200)

      expect(await violations()).toEqual([])
      // The CSP does refuse an inline script (the listener sees what it refuses).
      await page.evaluate(() => {
        const script = document.createElement('script')
        script.textContent = 'window.ran = true'
        document.head.append(script)
      })
      await expect.poll(violations).toEqual([expect.stringMatching(/^script-src(-elem)? inline$/)])
      expect(await page.evaluate(() => (window as unknown as { ran?: boolean }).ran)).toBeUndefined()

      // Log out: the admin is closed again.
      await page.goto(`${base}/admin/`)
      await Promise.all([page.waitForURL(/\/admin\/login\/$/), page.getByRole('button', { name: 'Log out' }).click()])
      await page.goto(`${base}/admin/`)
      expect(new URL(page.url()).pathname).toBe('/admin/login/')
    } finally {
      await context.close()
    }
  }, 90_000)

  it('a logged-in user who is not staff gets the 403 page; the pages may not fetch anything (CSP)', async () => {
    const context = await running.browser.newContext()
    const page = await context.newPage()
    try {
      // alice logs in through the API's session login (JSON, with the CSRF token), then opens the admin.
      await page.goto(`${running.server.baseUrl}/admin/login/`)
      const status = await page.evaluate(async () => {
        const csrf = (await (await fetch('/api/auth/csrf/', { headers: { Accept: 'application/json' } })).json()) as { csrfToken: string }
        const login = await fetch('/api/auth/login/', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-CSRFToken': csrf.csrfToken, Accept: 'application/json' },
          body: JSON.stringify({ username: 'alice', password: 'alice-pass-1' }),
        })
        return login.status
      }).catch((error: unknown) => String(error))
      // The admin's CSP (default-src 'none') refuses any fetch from its pages.
      expect(status).toMatch(/Failed to fetch|TypeError/)
      // So log in through the API from outside the page, and hand the browser the cookies.
      const csrfResponse = await fetch(`${running.server.baseUrl}/api/auth/csrf/`, { headers: { Accept: 'application/json' } })
      const csrfCookie = /csrftoken=([A-Za-z0-9]+)/.exec(csrfResponse.headers.get('set-cookie') ?? '')?.[1] ?? ''
      const login = await fetch(`${running.server.baseUrl}/api/auth/login/`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-CSRFToken': csrfCookie, Cookie: `csrftoken=${csrfCookie}`, Accept: 'application/json' },
        body: JSON.stringify({ username: 'alice', password: 'alice-pass-1' }),
      })
      expect(login.status).toBe(200)
      const session = /sessionid=([a-z0-9]+)/.exec(login.headers.getSetCookie().join(';'))?.[1] ?? ''
      await context.addCookies([{ name: 'sessionid', value: session, url: running.server.baseUrl }])
      const response = await page.goto(`${running.server.baseUrl}/admin/`)
      expect(response?.status()).toBe(403)
      expect(await page.locator('main').textContent()).toContain('You are logged in as alice, but are not authorized to access this page.')
      await shot(page, 'forbidden')
    } finally {
      await context.close()
    }
  }, 60_000)
})
