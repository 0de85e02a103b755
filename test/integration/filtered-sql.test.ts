/**
 * `KyselyPageSource.filtered` on real SQLite and PostgreSQL against `ArrayPageSource.filtered`
 * on the same rows: generated conditions (every kind but full text and regex, nested `and` /
 * `or`, integers and fractions against an integer column, nullable text and booleans, LIKE's
 * `%`, `_` and `\` in values and rows, non-ASCII letters in both cases), the same rows in the
 * same order, the same counts, under two orderings. On SQLite the expectation is SQLite's
 * `LIKE` (ASCII letters fold, even for `contains`; no other letter does), as Django's
 * lookups there answer; the examples below pin where the two databases part.
 */
import fc from 'fast-check'
import type { Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Condition, FilterValue } from '../../src/core/filter-condition.js'
import { openDatabase, type Database } from '../../src/kysely/database.js'
import { KyselyPageSource, type ColumnSpec } from '../../src/kysely/kysely-page-source.js'
import { ArrayPageSource } from '../../src/pagination/array-page-source.js'
import type { OrderingField } from '../../src/pagination/paginator.js'
import { BACKENDS, type TestDatabase } from '../helpers/databases.js'
import { expectedRows } from '../helpers/filter-models.js'
import { backendUnavailable } from '../helpers/requirements.js'

interface GadgetsTable {
  id: number
  name: string | null
  score: number
  ratio: number
  flag: boolean | number | null
  made: Date | string
}
interface GadgetsDb {
  gadgets: GadgetsTable
}
type Gadget = GadgetsTable

const COLUMNS: Readonly<Record<string, ColumnSpec>> = {
  id: { ref: 'gadgets.id', kind: 'integer' },
  name: { ref: 'gadgets.name', kind: 'text' },
  score: { ref: 'gadgets.score', kind: 'integer' },
  ratio: { ref: 'gadgets.ratio', kind: 'number' },
  flag: { ref: 'gadgets.flag', kind: 'boolean' },
  made: { ref: 'gadgets.made', kind: 'timestamp', nearlyUnique: true },
}

/** Names with what LIKE escapes and what case folding differs on. */
const NAMES = ['100%', '100', '1000', 'a_b', 'axb', 'a\\b', 'a\\\\b', "it's", 'Été', 'été', 'ÉTÉ', 'ete', 'Straße', 'STRASSE', 'strasse', 'ınk', 'INK', 'ink', 'ΣΊΣΥΦΟΣ', 'σίσυφος', 'Ǆ', 'ǆ', 'ﬁx', 'FIX', 'mixed Case', 'MIXED case', '%_\\', '', ' ']
const ROWS = 240
const EPOCH = Date.UTC(2024, 0, 1)

function gadget(i: number): Omit<Gadget, 'flag' | 'made'> & { flag: boolean | null; made: Date } {
  return {
    id: i,
    name: i % 11 === 0 ? null : (NAMES[i % NAMES.length] ?? '') + (i % 3 === 0 ? '' : ` ${i % 7}`),
    score: ((i * 37) % 21) - 10,
    ratio: ((i * 13) % 17) / 4,
    flag: i % 5 === 0 ? null : i % 2 === 0,
    made: new Date(EPOCH + ((i * 7919) % 1000) * 60_000),
  }
}

/** Text values built from the rows' pieces, so matches happen; plus LIKE's own characters. */
const textValue = fc.oneof(
  fc.constantFrom(...NAMES.filter((n) => n !== '')),
  fc.constantFrom('%', '_', '\\', '0%', '_b', 'a\\', 'É', 'é', 'ß', 'SS', 'ı', 'I', 'σ', 'Σ', 'ǅ', 'ﬁ', 'FI', 'case', 'CASE', ' 1', '00'),
  fc.string({ unit: fc.constantFrom('a', 'b', 'x', '%', '_', '\\', 'é', 'É', '0', '1', ' '), minLength: 1, maxLength: 3 }),
)
const integerValue = fc.integer({ min: -12, max: 12 })
const fractionValue = fc.integer({ min: -50, max: 50 }).map((n) => n / 4 + 0.1)
const dateValue = fc.integer({ min: -5, max: 1005 }).map((m) => new Date(EPOCH + m * 60_000))

const leaf: fc.Arbitrary<Condition> = fc.oneof(
  fc.record({ kind: fc.constant('compare' as const), field: fc.constant('id'), op: fc.constantFrom('=' as const, '<', '<=', '>', '>='), value: fc.integer({ min: -5, max: ROWS + 5 }) }),
  fc.record({ kind: fc.constant('compare' as const), field: fc.constant('score'), op: fc.constantFrom('=' as const, '<', '<=', '>', '>='), value: fc.oneof(integerValue, fractionValue) }),
  fc.record({ kind: fc.constant('compare' as const), field: fc.constant('ratio'), op: fc.constantFrom('=' as const, '<', '>='), value: fc.oneof(integerValue, fractionValue) }),
  fc.record({ kind: fc.constant('compare' as const), field: fc.constant('made'), op: fc.constantFrom('=' as const, '<', '<=', '>', '>='), value: dateValue }),
  fc.record({ kind: fc.constant('compare' as const), field: fc.constant('flag'), op: fc.constant('=' as const), value: fc.boolean() }),
  fc.record({ kind: fc.constant('compare' as const), field: fc.constant('name'), op: fc.constant('=' as const), value: textValue }),
  fc.record({ kind: fc.constant('in' as const), field: fc.constant('score'), values: fc.array(integerValue, { maxLength: 5 }) as fc.Arbitrary<FilterValue[]> }),
  fc.record({ kind: fc.constant('in' as const), field: fc.constant('name'), values: fc.array(textValue, { minLength: 1, maxLength: 3 }) as fc.Arbitrary<FilterValue[]> }),
  fc.record({ kind: fc.constant('in' as const), field: fc.constant('made'), values: fc.array(dateValue, { minLength: 1, maxLength: 3 }) as fc.Arbitrary<FilterValue[]> }),
  fc.record({
    kind: fc.constant('text' as const),
    field: fc.constant('name'),
    match: fc.constantFrom('exact' as const, 'contains', 'startswith'),
    caseInsensitive: fc.boolean(),
    value: textValue,
  }),
  fc.record({ kind: fc.constant('isNull' as const), field: fc.constantFrom('name', 'flag'), isNull: fc.boolean() }),
)
const condition: fc.Arbitrary<Condition> = fc.letrec<{ node: Condition }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.record({ kind: fc.constantFrom('and' as const, 'or'), conditions: fc.array(tie('node'), { maxLength: 3 }) }),
  ),
})).node

const ORDERINGS: readonly (readonly OrderingField[])[] = [
  [{ field: 'id', descending: false }],
  [
    { field: 'score', descending: true },
    { field: 'id', descending: false },
  ],
]

/** A row as the array source holds it: what the database returned (SQLite's booleans are 0/1: read as booleans). */
function normalized(row: Gadget): Gadget {
  return { ...row, flag: typeof row.flag === 'number' ? row.flag === 1 : row.flag }
}

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`filtered SQL against filtered arrays (${backend.name})`, () => {
    let target: TestDatabase
    let database: Database<GadgetsDb>
    let db: Kysely<GadgetsDb>
    let rows: Gadget[]
    const dialect = backend.name
    const source = (): KyselyPageSource<GadgetsDb, 'gadgets', Gadget> =>
      new KyselyPageSource({ db, dialect, columns: COLUMNS, orderBy: ['id'], query: db.selectFrom('gadgets').selectAll() })

    beforeAll(async () => {
      target = await backend.create()
      database = await openDatabase<GadgetsDb>(target.url)
      db = database.db
      const pg = dialect === 'postgres'
      await db.schema
        .createTable('gadgets')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('name', 'text')
        .addColumn('score', 'integer', (c) => c.notNull())
        .addColumn('ratio', pg ? 'double precision' : 'real', (c) => c.notNull())
        .addColumn('flag', pg ? 'boolean' : 'integer')
        .addColumn('made', pg ? 'timestamptz' : 'text', (c) => c.notNull())
        .execute()
      const values = Array.from({ length: ROWS }, (_, i) => gadget(i + 1)).map((g) => ({
        ...g,
        flag: g.flag === null || pg ? g.flag : g.flag ? 1 : 0,
        made: pg ? g.made : g.made.toISOString(),
      }))
      await db.insertInto('gadgets').values(values).execute()
      rows = (await source().all()).map(normalized)
      expect(rows).toHaveLength(ROWS)
    }, 60_000)
    afterAll(async () => {
      await database?.close()
      await target?.drop()
    })

    it('generated conditions: the same rows, in the same order, and the same counts', async () => {
      let nonEmpty = 0
      await fc.assert(
        fc.asyncProperty(condition, fc.constantFrom(...ORDERINGS), async (c, ordering) => {
          const filtered = source().filtered(c).orderedBy(ordering)
          const expected = new ArrayPageSource(await expectedRows(rows, c, dialect)).orderedBy(ordering)
          const ids = (list: readonly { id: unknown }[]): unknown[] => list.map((r) => r.id)
          expect(ids(await filtered.all()), JSON.stringify(c)).toEqual(ids(await expected.all()))
          expect(await filtered.count()).toBe(await expected.count())
          expect(ids(await filtered.slice(3, 5))).toEqual(ids(await expected.slice(3, 5)))
          if ((await expected.count()) > 0) nonEmpty++
        }),
        { numRuns: 400, seed: 42 },
      )
      expect(nonEmpty).toBeGreaterThan(100)
    }, 120_000)

    it("LIKE's characters are literal in every text lookup", async () => {
      const names = async (c: Condition): Promise<unknown[]> => (await source().filtered(c).all()).map((r) => r.name).sort()
      const contains = (value: string, caseInsensitive = true): Condition => ({ kind: 'text', field: 'name', match: 'contains', caseInsensitive, value })
      expect(new Set(await names(contains('%')))).toEqual(new Set(rows.filter((r) => r.name?.includes('%')).map((r) => r.name)))
      expect(new Set(await names(contains('a_b')))).toEqual(new Set(rows.filter((r) => r.name?.startsWith('a_b')).map((r) => r.name)))
      expect(new Set(await names(contains('a\\b', false)))).toEqual(new Set(rows.filter((r) => r.name?.includes('a\\b')).map((r) => r.name)))
      expect(await names({ kind: 'text', field: 'name', match: 'startswith', caseInsensitive: true, value: '%_\\' })).toEqual(
        rows.filter((r) => r.name?.startsWith('%_\\')).map((r) => r.name).sort(),
      )
      expect(await names({ kind: 'text', field: 'name', match: 'exact', caseInsensitive: true, value: '100%' })).toEqual(rows.filter((r) => r.name === '100%').map((r) => r.name))
    })

    it('case-insensitive matches of non-ASCII letters: PostgreSQL folds them one code point at a time, SQLite only ASCII', async () => {
      const names = async (value: string, match: 'contains' | 'exact' = 'contains'): Promise<string[]> =>
        [...new Set((await source().filtered({ kind: 'text', field: 'name', match, caseInsensitive: true, value }).all()).map((r) => r.name ?? ''))].sort()
      const arrays = async (value: string, match: 'contains' | 'exact' = 'contains'): Promise<string[]> =>
        [...new Set((await new ArrayPageSource(rows).filtered({ kind: 'text', field: 'name', match, caseInsensitive: true, value }).all()).map((r) => r.name ?? ''))].sort()
      if (dialect === 'postgres') {
        // UPPER() maps each code point (é → É, σ/ς → Σ, ı → I), never one to several (ß stays ß, ﬁ stays ﬁ): so does the array source.
        expect(await names('été', 'exact')).toEqual(['ÉTÉ', 'Été', 'été'])
        expect(await names('σίσυφος', 'exact')).toEqual(['ΣΊΣΥΦΟΣ', 'σίσυφος'])
        expect(await names('strasse', 'exact')).toEqual(['STRASSE', 'strasse'])
        expect(await names('ink', 'exact')).toEqual(['INK', 'ink', 'ınk'])
        expect(await names('ǅ', 'exact')).toEqual(['Ǆ', 'ǆ'])
        expect(await names('fix', 'exact')).toEqual(['FIX'])
        for (const value of ['été', 'σίσυφος', 'strasse', 'straße', 'ink', 'ǅ', 'ﬁ', 'fi']) {
          for (const match of ['exact', 'contains'] as const) expect(await arrays(value, match), value).toEqual(await names(value, match))
        }
      } else {
        // SQLite's LIKE folds ASCII only (as Django's lookups there): é and É differ, ı is not i.
        expect(await names('été', 'exact')).toEqual(['été'])
        expect(await names('ÉTÉ', 'exact')).toEqual(['ÉTÉ'])
        expect(await names('ink', 'exact')).toEqual(['INK', 'ink'])
        expect(await names('mixed case', 'exact')).toEqual(['MIXED case', 'mixed Case'])
        // The array source folds as PostgreSQL does, so it finds more here.
        expect(await arrays('été', 'exact')).toEqual(['ÉTÉ', 'Été', 'été'])
        // `contains` (case-sensitive in Django's docs) is LIKE on SQLite too: ASCII case is ignored.
        const sensitive = (await source().filtered({ kind: 'text', field: 'name', match: 'contains', caseInsensitive: false, value: 'MIXED' }).all()).map((r) => r.name)
        expect(new Set(sensitive.map((name) => name?.replace(/ \d$/, '')))).toEqual(new Set(['MIXED case', 'mixed Case']))
      }
    })

    it('a fraction compared with an integer column compares as a fraction (PostgreSQL refused it as a bigint: a 500)', async () => {
      const scores = async (op: '>' | '<=', value: number): Promise<number[]> =>
        [...new Set((await source().filtered({ kind: 'compare', field: 'score', op, value }).all()).map((r) => r.score))].sort((a, b) => a - b)
      expect((await scores('>', 2.5))[0]).toBe(3)
      expect((await scores('<=', 2.5)).at(-1)).toBe(2)
      // A safe integer past int4 is bound as bigint, not refused by the int4 column.
      expect(await source().filtered({ kind: 'compare', field: 'score', op: '<', value: 2 ** 40 }).count()).toBe(ROWS)
    })
  })
}
