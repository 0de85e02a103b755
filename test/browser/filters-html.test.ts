/**
 * A real browser on the HTML page of /api/articles/filtered/ (issue 42): as DRF's browsable
 * API does for a view with filter backends, the page has a "Filters" button opening
 * django-filter's field filters form, the search box and the ordering links. Submitting the
 * field filters form navigates to the filtered URL and shows the filtered articles, the form
 * filled in from it; the search box and an ordering link do the same; under the page's CSP
 * (forms to its own origin only) nothing is reported as a violation.
 */
import { describe, expect, it } from 'vitest'
import { chromiumAvailable, useReferenceInChromium } from '../helpers/browser.js'
import { unavailable } from '../helpers/requirements.js'

const available = chromiumAvailable('test/browser/filters-html.test.ts')

interface Shown {
  readonly count: number
  readonly results: readonly { readonly id: number; readonly author: string; readonly score: number; readonly title: string }[]
}

describe.skipIf(unavailable('a Chromium browser (CHROMIUM_PATH)', available))('the filter panel of the filtered articles page in a browser', () => {
  const running = useReferenceInChromium()

  it('opens Filters, submits the field filters form and sees the filtered articles; the search box and ordering links work too', async () => {
    const page = await running.browser.newPage()
    await page.addInitScript(() => {
      const seen: string[] = []
      ;(window as unknown as { cspViolations: string[] }).cspViolations = seen
      document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`))
    })
    const shown = async (): Promise<Shown> => JSON.parse((await page.locator('pre.response-body').textContent()) ?? '') as Shown
    const base = `${running.server.baseUrl}/api/articles/filtered/`
    try {
      await page.goto(base)
      const form = page.locator('details.filters form.form')
      // Closed until the Filters button is pressed, as DRF's modal.
      expect(await form.isVisible()).toBe(false)
      await page.locator('details.filters summary', { hasText: 'Filters' }).click()
      expect(await form.isVisible()).toBe(true)
      // django-filter's fields, with its labels, in the filter set's order.
      const labels = await form.locator('label').allTextContents()
      expect(labels.slice(0, 4)).toEqual(['ID:', 'ID is in:', 'Score:', 'Score is greater than or equal to:'])
      expect(labels).toHaveLength(13)

      await form.getByLabel('Score:', { exact: true }).fill('9')
      await form.getByLabel('Title starts with:').fill('article 1')
      await Promise.all([page.waitForURL(/score=9/), form.getByRole('button', { name: 'Submit' }).click()])
      const url = new URL(page.url())
      expect(url.pathname).toBe('/api/articles/filtered/')
      expect([url.searchParams.get('score'), url.searchParams.get('title__istartswith'), url.searchParams.get('id__in')]).toEqual(['9', 'article 1', ''])
      // Articles 107, 117, 127 and 137 have a score of 9 and a title starting "Article 1" (017 is "Article 017").
      const filtered = await shown()
      expect({ count: filtered.count, ids: filtered.results.map((a) => a.id) }).toEqual({ count: 4, ids: [107, 117, 127, 137] })
      // The form is filled in from the filtered URL.
      await page.locator('details.filters summary').click()
      expect(await form.getByLabel('Score:', { exact: true }).inputValue()).toBe('9')

      // The search box: its own GET form (DRF's), the term kept in the box.
      const search = page.locator('details.filters form.form-inline input[name="search"]')
      await search.fill('bob 13')
      await Promise.all([page.waitForURL(/search=/), page.locator('details.filters form.form-inline button').click()])
      expect(new URL(page.url()).search).toBe('?search=bob+13')
      const searched = await shown()
      expect(searched.results.map((a) => [a.id, a.author])).toEqual([
        [130, 'bob'],
        [132, 'bob'],
        [134, 'bob'],
        [136, 'bob'],
      ])
      await page.locator('details.filters summary').click()
      expect(await search.inputValue()).toBe('bob 13')

      // An ordering link keeps the search (DRF's `replace_query_param`).
      await Promise.all([page.waitForURL(/ordering=-id/), page.locator('details.filters a', { hasText: 'id - descending' }).click()])
      expect(new URL(page.url()).search).toBe('?ordering=-id&search=bob+13')
      expect((await shown()).results.map((a) => a.id)).toEqual([136, 134, 132, 130])
      await page.locator('details.filters summary').click()
      expect(await page.locator('details.filters a.active').textContent()).toBe('id - descending')

      expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([])
    } finally {
      await page.close()
    }
  }, 60_000)
})
