/**
 * django-filter's filters and DRF's `SearchFilter` in the own-routes style: the app's own
 * list handler behind `policies(api, { filters, search, ordering })` calls
 * `paginatedList(…, { filters, search, ordering })` (test/helpers/own-routes-apps.ts), on
 * Fastify, Express, Hono and node:http over real sockets. Each filter type reads as
 * django-filter reads it, the search as DRF's, a bad value answers 400 with django-filter's
 * body (every failing parameter, Django's messages), the next and previous links keep the
 * filters, and the four servers answer byte for byte alike.
 */
import { describe, expect, it } from 'vitest'
import { OWN_ROUTES_ADAPTERS, useOwnRoutesApps, type OwnRoutesAdapter } from '../helpers/own-routes-apps.js'

const ADAPTERS = OWN_ROUTES_ADAPTERS
type Adapter = OwnRoutesAdapter
const running = useOwnRoutesApps()

interface Page {
  readonly count: number
  readonly next: string | null
  readonly previous: string | null
  readonly results: readonly { readonly id: number; readonly title: string }[]
}

/** The answer to `target` on `adapter`: status, Content-Type, body text (and with the server's origin masked, to compare). */
async function get(adapter: Adapter, target: string): Promise<{ status: number; type: string | null; text: string; masked: string }> {
  const base = running.get(adapter)?.baseUrl ?? ''
  const res = await fetch(`${base}${target}`)
  const text = await res.text()
  return { status: res.status, type: res.headers.get('content-type'), text, masked: text.replaceAll(base, 'http://<server>') }
}

const page = (text: string): Page => JSON.parse(text) as Page
const ids = (text: string): number[] => page(text).results.map((b) => b.id)
/** The query of a link, as pairs in order (the page's own parameter included). */
const query = (link: string | null): string[][] => (link === null ? [] : [...new URL(link).searchParams.entries()].map(([k, v]) => [k, v]))

/** Filtered lists and the ids of their first page (page size 3), the same on every adapter. */
const FILTERED: readonly (readonly [string, number, readonly number[]])[] = [
  // A choice filter; its page 2 is followed below.
  ['/api/books/?genre=novel', 4, [1, 3, 5]],
  // Integer `in` (comma-separated) and `isnull` (a boolean), and-ed.
  ['/api/books/?id__in=2,4,6,7&sequel__isnull=false', 3, [2, 4, 6]],
  ['/api/books/?sequel__isnull=true', 1, [7]],
  // Date-times as Django's DateTimeField reads them: a bare date is midnight UTC.
  ['/api/books/?published__gte=2020-01-03&published__lt=2020-01-06T00:00:00Z', 3, [3, 4, 5]],
  // Text contains, case-insensitive, with an integer lookup; an empty value is no filter.
  ['/api/books/?title__icontains=BOOK&id__gte=2&id=', 6, [2, 3, 4]],
  // Search: every term must match some field (title contains, genre exact); commas split terms.
  ['/api/books/?search=essay', 3, [2, 4, 6]],
  ['/api/books/?search=book%207', 1, [7]],
  ['/api/books/?search=novel,5', 1, [5]],
  // With the ordering filter.
  ['/api/books/?genre=essay&ordering=-id', 3, [6, 4, 2]],
]

describe('filters and search in own routes (policies() + paginatedList) on Fastify, Express, Hono and node:http', () => {
  it('filter and search as django-filter and DRF do, the same bytes on every adapter', async () => {
    const problems: string[] = []
    for (const [target, count, first] of FILTERED) {
      const answers = new Map<Adapter, string>()
      for (const adapter of ADAPTERS) {
        const answer = await get(adapter, target)
        answers.set(adapter, `${answer.status} ${answer.type} ${answer.masked}`)
        if (answer.status !== 200) {
          problems.push(`${adapter} ${target}: ${answer.status} ${answer.text}`)
          continue
        }
        const got = { count: page(answer.text).count, ids: ids(answer.text) }
        if (JSON.stringify(got) !== JSON.stringify({ count, ids: first })) problems.push(`${adapter} ${target}: ${JSON.stringify(got)}`)
      }
      for (const adapter of ADAPTERS.slice(1)) if (answers.get(adapter) !== answers.get('fastify')) problems.push(`${target}: ${adapter} differs from fastify`)
    }
    expect(problems).toEqual([])
  }, 60_000)

  it("answers a bad value with 400 and django-filter's body: every failing parameter in declaration order, Django's messages", async () => {
    for (const adapter of ADAPTERS) {
      const answer = await get(adapter, '/api/books/?published__lt=nope&genre=poem&id__gte=x&id__in=1,y&search=book')
      expect({ adapter, status: answer.status, type: answer.type }).toEqual({ adapter, status: 400, type: 'application/json' })
      // The same text django-filter 23.1 answers (its form's errors, in the filter set's order).
      expect(answer.text).toBe(
        '{"id__in":["Enter a number."],"id__gte":["Enter a number."],"genre":["Select a valid choice. poem is not one of the available choices."],"published__lt":["Enter a valid date/time."]}',
      )
    }
  })

  it('keeps the filters, the search and the ordering in the next and previous links, which lead to the rest', async () => {
    for (const adapter of ADAPTERS) {
      const first = await get(adapter, '/api/books/?title__icontains=book&id__gte=2&search=book&ordering=-id')
      expect(ids(first.text)).toEqual([7, 6, 5])
      const next = page(first.text).next
      // DRF's `replace_query_param` writes the query sorted by name.
      expect(query(next)).toEqual([['id__gte', '2'], ['ordering', '-id'], ['page', '2'], ['search', 'book'], ['title__icontains', 'book']])
      const second = await get(adapter, new URL(next ?? '').pathname + new URL(next ?? '').search)
      expect({ adapter, ids: ids(second.text), next: page(second.text).next }).toEqual({ adapter, ids: [4, 3, 2], next: null })
      const previous = page(second.text).previous
      // DRF's page 1 link drops `page`, keeping the rest.
      expect(query(previous)).toEqual([['id__gte', '2'], ['ordering', '-id'], ['search', 'book'], ['title__icontains', 'book']])

      const novels = await get(adapter, '/api/books/?genre=novel')
      const rest = page(novels.text).next ?? ''
      expect(query(rest)).toEqual([['genre', 'novel'], ['page', '2']])
      const last = await get(adapter, new URL(rest).pathname + new URL(rest).search)
      expect({ adapter, ids: ids(last.text), count: page(last.text).count }).toEqual({ adapter, ids: [7], count: 4 })
    }
  })
})
