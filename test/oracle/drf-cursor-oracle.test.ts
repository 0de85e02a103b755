/**
 * DRF cursors presented to gatehouse: the cursors are collected from the DRF 3.14 oracle
 * itself (every next and previous link reachable from the first page, so forward, reverse
 * and offset cursors, DRF's paging artifacts included), then the same request goes to the
 * reference API. Its `results` must be DRF's, its links present exactly when DRF's are,
 * and those links (gatehouse cursors) must continue from the page's last / first row.
 */
import { describe, expect, it } from 'vitest'
import { oracleBackends } from '../helpers/databases.js'
import { fetchPage, walkForward } from '../conformance/articles-walk.js'
import { decodeDrfCursor, encodeDrfCursor } from '../../src/pagination/drf-cursor.js'
import { oracleAvailable, useOracleAndReference } from './oracle-server.js'
import { backendUnavailable, unavailable } from '../helpers/requirements.js'

const drfInstalled = oracleAvailable()

/** The path and query of a URL (the origins differ). */
function relative(url: string): string {
  const u = new URL(url)
  return `${u.pathname}${u.search}`
}

function cursorOf(url: string): string | null {
  return new URL(url).searchParams.get('cursor')
}

/** Every DRF URL reachable from `start` along next/previous links (breadth first, bounded). */
async function collect(base: string, start: string, limit: number): Promise<string[]> {
  const seen = new Set<string>([start])
  const queue = [start]
  while (queue.length > 0 && seen.size < limit) {
    const path = queue.shift() as string
    const page = await fetchPage(base + path)
    for (const link of [page.next, page.previous]) {
      if (link === null) continue
      const rel = relative(link)
      if (!seen.has(rel)) {
        seen.add(rel)
        queue.push(rel)
      }
    }
  }
  return [...seen].filter((path) => path.includes('cursor='))
}

const ROUTES: { path: string; pageSize: number }[] = [
  { path: '/api/articles/cursor/', pageSize: 10 },
  { path: '/api/articles/cursor/?page_size=3', pageSize: 3 },
  { path: '/api/articles/cursor/?author=bob&page_size=4', pageSize: 4 },
  { path: '/api/articles/cursor-score/', pageSize: 7 },
]

for (const backend of oracleBackends()) describe.skipIf(unavailable('the DRF oracle (python3 with Django and DRF)', drfInstalled) || backendUnavailable(backend))(`DRF cursors honoured, against the DRF oracle (${backend.name})`, () => {
  const servers = useOracleAndReference(() => backend.create(), { readOnly: true })

  const kinds = new Map<string, number>()
  let compared = 0

  for (const { path, pageSize } of ROUTES) {
    it(`answers every DRF cursor of ${path} with DRF's rows, then continues with its own`, async () => {
      // The whole collection in order, from gatehouse's own walk (checked against DRF's by articles-oracle).
      const full = (await walkForward(servers.ours.baseUrl + path)).flatMap((p) => p.ids)
      const drfFull = (await walkForward(servers.oracleBase + path)).flatMap((p) => p.ids)
      expect(full).toEqual(drfFull)
      const paths = await collect(servers.oracleBase, path, 400)
      expect(paths.length).toBeGreaterThan(5)
      const differences: string[] = []
      for (const request of paths) {
        const raw = cursorOf(servers.oracleBase + request)
        const cursor = raw === null ? null : decodeDrfCursor(raw)
        if (cursor === null) throw new Error(`oracle link without a DRF cursor: ${request}`)
        const kind = `${cursor.reverse ? 'reverse' : 'forward'}${cursor.position === null ? '' : '+position'}${cursor.offset > 0 ? '+offset' : ''}`
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1)
        const theirs = await fetchPage(servers.oracleBase + request)
        const mine = await fetchPage(servers.ours.baseUrl + request)
        compared++
        const shape = (p: typeof mine): unknown => [p.status, p.ids, p.next === null, p.previous === null]
        if (JSON.stringify(shape(mine)) !== JSON.stringify(shape(theirs))) {
          differences.push(`${request} (${JSON.stringify(cursor)})\n  ours   ${JSON.stringify(shape(mine))}\n  oracle ${JSON.stringify(shape(theirs))}`)
          continue
        }
        // Our links are gatehouse cursors, continuing from this page's edges in gatehouse's
        // order (a reverse DRF page lists tied rows the other way round, see drfPage).
        const places = mine.ids.map((id) => full.indexOf(id))
        if (mine.next !== null) {
          // A gatehouse cursor: `payload.tag` (standard base64, hence a DRF cursor, never holds a dot).
          expect(cursorOf(mine.next)).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
          const after = await fetchPage(mine.next)
          const start = mine.ids.length === 0 ? 0 : Math.max(...places) + 1
          if (JSON.stringify(after.ids) !== JSON.stringify(full.slice(start, start + pageSize))) {
            differences.push(`${request}: next gave ${JSON.stringify(after.ids)}, expected ${JSON.stringify(full.slice(start, start + pageSize))}`)
          }
        }
        if (mine.previous !== null && mine.ids.length > 0) {
          const before = await fetchPage(mine.previous)
          const end = Math.min(...places)
          const expected = full.slice(Math.max(0, end - pageSize), end)
          if (JSON.stringify(before.ids) !== JSON.stringify(expected)) {
            differences.push(`${request}: previous gave ${JSON.stringify(before.ids)}, expected ${JSON.stringify(expected)}`)
          }
        }
      }
      expect(differences).toEqual([])
    }, 120_000)
  }

  it('answers hand-made DRF cursors as DRF does (clamped offsets, empty and unknown keys, malformed)', async () => {
    const cursors = [
      encodeDrfCursor({ offset: 2000, reverse: false, position: null }),
      encodeDrfCursor({ offset: 3, reverse: true, position: null }),
      encodeDrfCursor({ offset: 0, reverse: true, position: '5' }),
      encodeDrfCursor({ offset: 4, reverse: false, position: '5' }),
      encodeDrfCursor({ offset: 0, reverse: false, position: '99' }),
      encodeDrfCursor({ offset: 0, reverse: true, position: '-1' }),
      '==',
      Buffer.from('abc').toString('base64'),
      Buffer.from('o=+2&r=2&p=5').toString('base64'),
      Buffer.from('o=1&o=9&p=4&p=1').toString('base64'),
      Buffer.from('o=-1').toString('base64'),
      Buffer.from('r=abc').toString('base64'),
      Buffer.from('o=').toString('base64'),
      Buffer.from('o=1.5').toString('base64'),
      'bz01!!',
      'bz0',
      '%E2%82%AC',
    ].map((cursor): [string, string] => ['/api/articles/cursor-score/', cursor])
    // Positions Django's model fields convert (issue 24 item 8): Python's int() on the integer
    // score, out of its 32-bit range too; Django 3.2's parse_datetime / parse_date on created.
    const position = (raw: string): string => Buffer.from(raw, 'latin1').toString('base64')
    for (const raw of ['p=%2B5', 'p=1_0', 'p=%D9%A3', 'p=+5+', 'o=2&p=%207', 'p=%C2%A05', 'p=2147483648', 'p=-2147483649', 'r=1&p=2147483648', 'r=1&p=-2147483649', 'p=99999999999', 'p=9223372036854775807']) {
      cursors.push(['/api/articles/cursor-score/', position(raw)])
    }
    for (const raw of ['p=2024-1-1+01:00:00', 'p=2024-01-01+1:0', 'p=2024-01-01', 'p=2024-01-01T00:10:00Z', 'p=2024-01-01+00:10:00%2B01:00', 'p=2024-01-01+00:10:00.5-0030', 'p=2024-01-01%0A', 'p=%D9%A2%D9%A0%D9%A2%D9%A4-01-01+00:05', 'r=1&p=2024-01-01+00:30', 'p=2024-01-01+00:10:00,25']) {
      cursors.push(['/api/articles/cursor/', position(raw)])
    }
    const differences: string[] = []
    for (const [route, cursor] of cursors) {
      const request = `${route}?cursor=${encodeURIComponent(cursor)}`
      const theirs = await fetchPage(servers.oracleBase + request)
      const mine = await fetchPage(servers.ours.baseUrl + request)
      compared++
      const shape = (p: typeof mine): unknown => [p.status, p.status === 200 ? p.ids : p.body, p.next === null, p.previous === null]
      if (JSON.stringify(shape(mine)) !== JSON.stringify(shape(theirs))) {
        differences.push(`${cursor}\n  ours   ${JSON.stringify(shape(mine))}\n  oracle ${JSON.stringify(shape(theirs))}`)
      }
    }
    expect(differences).toEqual([])
  })

  it('answers positions DRF cannot take with 404 Invalid cursor (DRF: a 500)', async () => {
    for (const [route, position] of [
      ['/api/articles/cursor-score/', 'abc'],
      ['/api/articles/cursor-score/', '1.5'],
      ['/api/articles/cursor-score/', '5.0'],
      ['/api/articles/cursor-score/', '\u001c5'],
      ['/api/articles/cursor/', 'abc'],
      ['/api/articles/cursor/', '2024-02-30 00:00:00+00:00'],
      ['/api/articles/cursor/', 'None'],
      ['/api/articles/cursor/', '2024-01-01 24:00'],
      ['/api/articles/cursor/', '2024-01-01 00:10:00+24'],
      ['/api/articles/cursor/', '2024-01-01 '],
    ] as const) {
      const cursor = encodeDrfCursor({ offset: 0, reverse: false, position })
      const mine = await fetchPage(`${servers.ours.baseUrl}${route}?cursor=${encodeURIComponent(cursor)}`)
      expect([position, mine.status, mine.body]).toEqual([position, 404, { detail: 'Invalid cursor' }])
    }
  })

  it('covered every kind of DRF cursor', () => {
    // Forward and reverse, with a position, with an offset, and both.
    for (const kind of ['forward+position', 'reverse+position', 'forward+position+offset', 'reverse+position+offset', 'forward+offset', 'reverse+offset']) {
      expect([kind, (kinds.get(kind) ?? 0) > 0]).toEqual([kind, true])
    }
    console.log(`DRF cursors compared: ${compared}; kinds: ${JSON.stringify(Object.fromEntries(kinds))}`)
  })
})
