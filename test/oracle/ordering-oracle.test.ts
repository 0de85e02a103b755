/**
 * The ordering filter's routes (`/api/articles/ordered/`, `/api/articles/cursor-ordered/`)
 * against DRF 3.14's `OrderingFilter`, with the reference API on SQLite and on PostgreSQL:
 * single requests (status and body, origin and cursor strings masked) and forward walks
 * under every allowed ordering. DRF orders by exactly the requested fields and SQLite
 * returns ties by id; gatehouse appends `id` as a tiebreaker, so both databases give DRF's
 * pages. The one documented difference: a cursor sent with another `?ordering=` than the
 * one it was issued under is `404 Invalid cursor` here, where DRF answers a page of the
 * other ordering from the old position.
 */
import { describe, expect, it } from 'vitest'
import { oracleBackends } from '../helpers/databases.js'
import { fetchPage, walkBackward, walkForward, type FetchedPage } from '../conformance/articles-walk.js'
import { oracleAvailable, useOracleAndReference } from './oracle-server.js'
import { backendUnavailable, unavailable } from '../helpers/requirements.js'

const drfInstalled = oracleAvailable()

function masked(page: FetchedPage, origin: string): unknown {
  return {
    status: page.status,
    body: JSON.parse(JSON.stringify(page.body).split(origin).join('http://host').replace(/cursor=[^&"]*/g, 'cursor=*')) as unknown,
  }
}

const ORDERED = '/api/articles/ordered/'
const CURSOR_ORDERED = '/api/articles/cursor-ordered/'

/** Orderings of the page-number route: every field both ways, combinations, and what DRF drops. */
const ORDERED_QUERIES = [
  '',
  '?ordering=id',
  '?ordering=-id',
  '?ordering=title',
  '?ordering=-title',
  '?ordering=score',
  '?ordering=-score',
  '?ordering=created',
  '?ordering=-created',
  '?ordering=-score,created',
  '?ordering=score,-id',
  '?ordering=-created,-score&author=bob',
  '?ordering=-score&page_size=25',
]

/** Orderings of the cursor route (its fields are created, score and id). */
const CURSOR_QUERIES = [
  '',
  '?ordering=created',
  '?ordering=-created',
  '?ordering=score',
  '?ordering=-score',
  '?ordering=id',
  '?ordering=-id',
  '?ordering=-score,created',
  '?ordering=score,-created',
  '?ordering=-created,score',
  '?ordering=-score&author=alice&page_size=25',
  '?ordering=title',
]

const SINGLE_REQUESTS = [
  `${ORDERED}?ordering=`,
  `${ORDERED}?ordering=bogus`,
  `${ORDERED}?ordering=author`,
  `${ORDERED}?ordering=pk`,
  `${ORDERED}?ordering=Score`,
  `${ORDERED}?ordering=--id`,
  `${ORDERED}?ordering=-`,
  `${ORDERED}?ordering=,,-title,`,
  `${ORDERED}?ordering=%20-score%20,%20id`,
  `${ORDERED}?ordering=%C2%A0-score%E3%80%80`,
  `${ORDERED}?ordering=%E2%80%8B-score`,
  `${ORDERED}?ordering=%EF%BB%BFscore`,
  `${ORDERED}?ordering=score,%EF%BB%BF-created`,
  `${ORDERED}?ordering=id,-id`,
  `${ORDERED}?ordering=-id,id`,
  `${ORDERED}?ordering=-title&ordering=score`,
  `${ORDERED}?ordering=score&page=last`,
  `${ORDERED}?ordering=score&page=end`,
  `${ORDERED}?ordering=score&page=15`,
  `${ORDERED}?ordering=%00`,
  `${ORDERED}?ordering=%zz`,
  `${ORDERED}?ordering=created__x`,
  `${ORDERED}?ordering=-score&author=nobody`,
  `${ORDERED}?ordering=${'-score,'.repeat(400)}id`,
  `${CURSOR_ORDERED}?ordering=`,
  `${CURSOR_ORDERED}?ordering=bogus`,
  `${CURSOR_ORDERED}?ordering=created__x`,
  `${CURSOR_ORDERED}?ordering=title`,
  `${CURSOR_ORDERED}?ordering=-score&cursor=`,
  `${CURSOR_ORDERED}?ordering=-score&cursor=zzz`,
  `${CURSOR_ORDERED}?ordering=-score&page_size=0`,
  `${CURSOR_ORDERED}?ordering=-score&page_size=26`,
]

for (const backend of oracleBackends()) {
  describe.skipIf(unavailable('the DRF oracle (python3 with Django and DRF)', drfInstalled) || backendUnavailable(backend))(`ordering filter: gatehouse against the DRF oracle (${backend.name})`, () => {
    const servers = useOracleAndReference(backend.create, { readOnly: true })

    it('answers single requests with the same status and masked body', async () => {
      const differences: string[] = []
      for (const path of SINGLE_REQUESTS) {
        const a = masked(await fetchPage(servers.ours.baseUrl + path), servers.ours.baseUrl)
        const b = masked(await fetchPage(servers.oracleBase + path), servers.oracleBase)
        if (JSON.stringify(a) !== JSON.stringify(b)) differences.push(`${path.slice(0, 120)}\n  ours   ${JSON.stringify(a).slice(0, 400)}\n  oracle ${JSON.stringify(b).slice(0, 400)}`)
      }
      expect(differences).toEqual([])
    })

    for (const [route, queries] of [
      [ORDERED, ORDERED_QUERIES],
      [CURSOR_ORDERED, CURSOR_QUERIES],
    ] as const) {
      it(`walks ${route} under every ordering like DRF (next links keep ?ordering=)`, async () => {
        for (const query of queries) {
          const a = await walkForward(servers.ours.baseUrl + route + query)
          const b = await walkForward(servers.oracleBase + route + query)
          expect([query, a.map((p) => masked(p, servers.ours.baseUrl))]).toEqual([query, b.map((p) => masked(p, servers.oracleBase))])
          const last = a[a.length - 1]
          if (last === undefined) throw new Error('empty walk')
          const back = await walkBackward(last.url)
          if (route === CURSOR_ORDERED) {
            // Gatehouse's cursor guarantee: previous links give the forward pages exactly.
            expect([query, back.map((p) => p.ids)]).toEqual([query, a.map((p) => p.ids).reverse()])
          } else {
            const lastB = b[b.length - 1]
            if (lastB === undefined) throw new Error('empty oracle walk')
            const backB = await walkBackward(lastB.url)
            expect([query, back.map((p) => masked(p, servers.ours.baseUrl))]).toEqual([query, backB.map((p) => masked(p, servers.oracleBase))])
          }
        }
      })
    }

    it('honours a DRF cursor under the ordering its request names, as DRF does', async () => {
      // The oracle's cursors for ?ordering=-score (position and offset), pages 2 to 4.
      let url: string | null = `${servers.oracleBase}${CURSOR_ORDERED}?ordering=-score&page_size=5`
      for (let step = 0; step < 4 && url !== null; step++) {
        const b: FetchedPage = await fetchPage(url)
        const path = url.slice(servers.oracleBase.length)
        const a = await fetchPage(servers.ours.baseUrl + path)
        expect([path, a.status, a.ids]).toEqual([path, b.status, b.ids])
        url = b.next
      }
    })

    it('documented difference: a cursor sent with another ordering is 404 Invalid cursor, never a wrong page or a 500', async () => {
      const first = await fetchPage(`${servers.ours.baseUrl}${CURSOR_ORDERED}?ordering=-score`)
      const next = first.next
      if (next === null) throw new Error('no next link')
      expect(new URL(next).searchParams.get('ordering')).toBe('-score')
      for (const other of ['score', '-created', 'id', '-score,created', 'bogus', '']) {
        const swapped = new URL(next)
        swapped.searchParams.set('ordering', other)
        const page = await fetchPage(swapped.toString())
        expect([other, page.status, page.body]).toEqual([other, 404, { detail: 'Invalid cursor' }])
      }
      // The same ordering spelled differently (spaces, a repeated or dropped field) is the same ordering.
      for (const same of ['-score', ' -score ', '-score,-score', '-score,title', 'bogus,-score']) {
        const respelled = new URL(next)
        respelled.searchParams.set('ordering', same)
        expect([same, (await fetchPage(respelled.toString())).status]).toEqual([same, 200])
      }
    })
  })
}
