// TEMPORARY stand-in for src/pagination/cursor-pagination.ts + src/kysely/kysely-page-source.ts while
// H-PAGINATION writes them. Only validates the harness (load, timing, tables). Deleted before reporting.
import { sql, type SelectQueryBuilder } from 'kysely'
import type { ApiRequest } from '../src/core/api-request.js'
import type { KeyValue, OrderingField, Page, SeekArgs, SeekSource } from '../src/pagination/paginator.js'

export interface Cursor { readonly reverse: boolean; readonly key: readonly KeyValue[] | null }

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c)).toString('base64')
}
function decodeCursor(s: string): Cursor {
  return JSON.parse(Buffer.from(s, 'base64').toString()) as Cursor
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyQB = SelectQueryBuilder<any, any, any>

export function kyselyPageSource<T>(qb: AnyQB, ordering: readonly OrderingField[]): SeekSource<T> {
  const ordered = (q: AnyQB, o: readonly OrderingField[], flip: boolean): AnyQB =>
    o.reduce((acc, f) => acc.orderBy(f.field, f.descending !== flip ? 'desc' : 'asc'), q)
  return {
    async count() {
      const r = await qb.clearSelect().clearOrderBy().select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()
      return Number(r.n)
    },
    async slice(offset, limit) {
      return (await ordered(qb, ordering, false).limit(limit).offset(offset).execute()) as T[]
    },
    async all() {
      return (await ordered(qb, ordering, false).execute()) as T[]
    },
    async seek(args: SeekArgs) {
      let q = ordered(qb, args.ordering, args.reverse)
      if (args.after !== null) {
        // Row-value comparison; all fields share one direction in the benchmark's orderings.
        const desc = (args.ordering[0] as OrderingField).descending !== args.reverse
        const cols = sql.join(args.ordering.map((f) => sql.ref(f.field)))
        const vals = sql.join(args.after.map((v) => (v instanceof Date ? v.toISOString() : v)))
        q = q.where(sql<boolean>`(${cols}) ${sql.raw(desc ? '<' : '>')} (${vals})`)
      }
      return (await q.limit(args.limit).execute()) as T[]
    },
    keyOf(row, o) {
      return o.map((f) => {
        const v = (row as Record<string, unknown>)[f.field]
        return v instanceof Date ? v.toISOString() : (v as KeyValue)
      })
    },
    acceptsKey() {
      return true
    },
  }
}

export class CursorPagination {
  constructor(private readonly o: { pageSize: number; ordering: readonly OrderingField[] }) {}
  async paginate<T>(s: SeekSource<T>, req: ApiRequest): Promise<Page<T>> {
    const raw = req.url.searchParams.get('cursor')
    const c: Cursor = raw === null ? { reverse: false, key: null } : decodeCursor(raw)
    const rows = await s.seek({ ordering: this.o.ordering, after: c.key, reverse: false, limit: this.o.pageSize + 1 })
    const items = rows.slice(0, this.o.pageSize)
    let next: string | null = null
    const last = items[items.length - 1]
    if (rows.length > this.o.pageSize && last !== undefined) {
      const u = new URL(req.url)
      u.searchParams.set('cursor', encodeCursor({ reverse: false, key: s.keyOf(last, this.o.ordering) }))
      next = u.toString()
    }
    return { items, count: null, next, previous: null, displayPageControls: true, state: {} }
  }
}
