/**
 * The filtered routes (`/api/articles/filtered/`, `/api/articles/filtered-cursor/`) against
 * django-filter 23.1's `DjangoFilterBackend` and DRF 3.14's `SearchFilter` in the DRF oracle,
 * on SQLite and PostgreSQL: generated requests (valid and invalid values, several filters at
 * once, search terms with commas, spaces, NUL, `%`, `_`, `\`, ordering, page sizes), each
 * compared byte for byte (status and body text, the origin and cursor values masked), then
 * their next links followed on each side.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { oracleBackends } from '../helpers/databases.js'
import { backendUnavailable, unavailable } from '../helpers/requirements.js'
import { oracleAvailable, useOracleAndReference } from './oracle-server.js'

const drfInstalled = oracleAvailable()

const FILTERED = '/api/articles/filtered/'
const FILTERED_CURSOR = '/api/articles/filtered-cursor/'

/** Values a number filter may get: numbers in every spelling Decimal reads, and what it refuses. */
const numberValue = fc.oneof(
  fc.integer({ min: -3, max: 140 }).map(String),
  fc.constantFrom('', ' ', '5.5', '-0', '+3', '1e1', '7.', '.5', '0x10', 'abc', 'NaN', 'inf', '1_0', ' 4 ', '2E0', '1e51', '9'.repeat(60), '٣', '1,2', '%00'),
)
/** Values of `in` lookups. */
const listValue = fc.oneof(
  fc.array(fc.integer({ min: 0, max: 140 }), { minLength: 1, maxLength: 4 }).map((xs) => xs.join(',')),
  fc.constantFrom('', ',', '1,,2', '3,x', ' 5 , 6', '1.9,2.1', 'a,b'),
)
/** Date-times as Django's form field reads them, and ones it refuses. */
const dateValue = fc.oneof(
  fc.integer({ min: 0, max: 150 }).map((m) => new Date(Date.UTC(2024, 0, 1, 0, m)).toISOString().replace('.000Z', 'Z')),
  fc.integer({ min: 0, max: 150 }).map((m) => new Date(Date.UTC(2024, 0, 1, 0, m)).toISOString().slice(0, 16)),
  fc.constantFrom('2024-01-01 00:30', '2024-01-01T00:30:00+01:00', '2024-01-01T01:00:00-00:30', '2024-1-1T0:5', '2024-01-01T00:30:00.000001', '2024-01-01T00:30:00,5Z', 'yesterday', '2024-13-01T00:00', '2024-02-30T00:00', '2024-01-01', ' 2024-01-01T00:10 ', '2024-01-01T00:10:00+2400', '', '2024-01-01T24:00'),
)
const textValue = fc.oneof(fc.constantFrom('', ' ', 'Article 001', 'article 001', 'Article', 'rticle 01', '%', '_', '\\', '1%', 'Art', 'art', 'x\u0000y', 'Article 0_1', ' Article 010 '))
const searchValue = fc.oneof(
  fc.array(fc.constantFrom('article', 'ART', '01', '1', 'bob', 'ALICE', 'alice', 'carol', '%', '_', '\\', '0_', '%1', 'x', '13', 'cle 1', 'é'), { minLength: 0, maxLength: 3 }).chain((terms) =>
    fc.constantFrom(' ', ',', ', ', '\t', '\u0000', '\u00a0', '\u3000').map((sep) => terms.join(sep)),
  ),
  fc.constantFrom('', ' ', ',', '\u0000', 'bob\u0000', 'b\u0000ob'),
)
const orderingValue = fc.constantFrom('id', '-id', 'score', '-score,id', 'title', '-created', 'bogus', '')

type Param = readonly [string, string]
const VALUES: Readonly<Record<string, fc.Arbitrary<string>>> = {
  id: numberValue,
  id__in: listValue,
  score: numberValue,
  score__gte: numberValue,
  score__lte: numberValue,
  score__gt: numberValue,
  score__lt: numberValue,
  score__in: listValue,
  title: textValue,
  title__icontains: textValue,
  title__istartswith: textValue,
  created__gte: dateValue,
  created__lt: dateValue,
  search: searchValue,
  author: fc.constantFrom('alice', 'bob', ''),
  page_size: fc.constantFrom('5', '25', '0', 'x'),
}
/** Up to four parameters at once (a subset of the names, then a value for each). */
const filterParams: fc.Arbitrary<Param[]> = fc
  .shuffledSubarray(Object.keys(VALUES), { minLength: 0, maxLength: 4 })
  .chain((names) => fc.tuple(...names.map((name) => (VALUES[name] ?? fc.constant('')).map((value): Param => [name, value]))))

const encode = (params: readonly Param[]): string => (params.length === 0 ? '' : `?${params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`)

function generated(route: string, seed: number, runs: number, withOrdering: boolean): string[] {
  const arb = withOrdering ? fc.tuple(filterParams, fc.option(orderingValue)).map(([ps, o]) => (o === null ? ps : [...ps, ['ordering', o] as const])) : filterParams
  return fc.sample(arb, { seed, numRuns: runs }).map((ps) => route + encode(ps))
}

/** Status and body text, the origin and cursor values masked (gatehouse signs its cursors). */
async function exchange(base: string, path: string): Promise<{ text: string; next: string | null }> {
  const response = await fetch(base + path, { headers: { accept: 'application/json' } })
  const body = await response.text()
  let next: string | null = null
  try {
    const parsed = JSON.parse(body) as { next?: unknown }
    if (typeof parsed.next === 'string') next = parsed.next.slice(base.length)
  } catch {
    // not JSON: compared as text
  }
  return { text: `${response.status} ${body.split(base).join('http://host').replace(/cursor=[^&"]*/g, 'cursor=*')}`, next }
}

for (const backend of oracleBackends()) {
  describe.skipIf(unavailable('the DRF oracle (python3 with Django, DRF and django-filter)', drfInstalled) || backendUnavailable(backend))(
    `filters and search: gatehouse against django-filter and DRF's SearchFilter (${backend.name})`,
    () => {
      const servers = useOracleAndReference(backend.create, { readOnly: true })

      for (const [route, seed, withOrdering] of [
        [FILTERED, 42, true],
        [FILTERED_CURSOR, 4242, false],
      ] as const) {
        it(`answers generated requests to ${route} byte for byte, following next links`, async () => {
          const differences: string[] = []
          for (const path of generated(route, seed, 120, withOrdering)) {
            let ours: string | null = path
            let theirs: string | null = path
            for (let page = 0; page < 4 && ours !== null && theirs !== null; page++) {
              const a: { text: string; next: string | null } = await exchange(servers.ours.baseUrl, ours)
              const b: { text: string; next: string | null } = await exchange(servers.oracleBase, theirs)
              if (a.text !== b.text) {
                differences.push(`${ours}\n  ours   ${a.text.slice(0, 300)}\n  oracle ${b.text.slice(0, 300)}`)
                break
              }
              ours = a.next
              theirs = b.next
            }
          }
          expect(differences).toEqual([])
        }, 240_000)
      }
    },
  )
}
