/**
 * The ordering filter in middleware style: an Express app's own handlers, guarded by
 * `policies`, call `paginatedList(…, { ordering })` over the reference API's SQLite articles,
 * served on a real socket. Page-number pages follow `?ordering=`; a cursor walk under an
 * ordering sees every article once; a cursor sent with another ordering is 404.
 */
import type { AddressInfo } from 'node:net'
import express from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openReferenceContext, type ReferenceContext } from '../../examples/reference-api/context.js'
import { articleSource, serializeArticle } from '../../examples/reference-api/routes/articles.js'
import { CursorPagination, OrderingFilter, PageNumberPagination, createApi, paginatedList } from 'drf-gatehouse'
import { errorHandler, policies, requestContext, sendApiResponse } from 'drf-gatehouse/express'
import { freshSqlite, type TestDatabase } from '../helpers/databases.js'
import { TEST_SECRET } from '../helpers/secrets.js'
import { walkBackward, walkForward, fetchPage } from '../conformance/articles-walk.js'

const COLUMNS = ['id', 'title', 'author', 'score', 'created']

describe('OrderingFilter in middleware style (Express, SQLite, real HTTP)', () => {
  let database: TestDatabase
  let ref: ReferenceContext
  let server: ReturnType<ReturnType<typeof express>['listen']>
  let base = ''

  beforeAll(async () => {
    database = freshSqlite()
    ref = await openReferenceContext({ databaseUrl: database.url })
    const api = createApi()
    const ordering = new OrderingFilter({ fields: ['score', 'created', 'id'], ordering: '-created', param: 'sort' })
    // Checked once at start-up, as listHandler({ fields }) does for a view.
    ordering.validateFields(COLUMNS, 'GET /articles')
    const pages = new PageNumberPagination({ pageSize: 25 })
    const cursor = new CursorPagination({ secret: TEST_SECRET, ordering: 'id', pageSize: 20 })
    const app = express()
    for (const [path, paginator] of [
      ['/articles/', pages],
      ['/articles/walk/', cursor],
    ] as const) {
      app.get(path, policies(api), (req, res, next) => {
        const ctx = requestContext(req)
        paginatedList(ctx, paginator, articleSource(ref, ctx), serializeArticle, { ordering }).then((response) => sendApiResponse(res, response), next)
      })
    }
    app.use(errorHandler(api))
    server = app.listen(0, '127.0.0.1')
    await new Promise((resolve) => server.once('listening', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve))
    await ref?.close()
    await database?.drop()
  })

  it('validateFields refuses a filter over a field the source lacks', () => {
    expect(() => new OrderingFilter({ fields: ['rank'] }).validateFields(COLUMNS, 'GET /articles')).toThrow(/"rank"/)
  })

  it('page-number pages follow ?sort=, default -created, id breaking ties; links keep it', async () => {
    const byScore = await walkForward(`${base}/articles/?sort=-score`)
    const ids = byScore.flatMap((p) => p.ids)
    expect(ids.slice(0, 3)).toEqual([7, 17, 27])
    expect(ids).toHaveLength(137)
    expect(new URL(byScore[0]?.next ?? '').searchParams.get('sort')).toBe('-score')
    expect((await fetchPage(`${base}/articles/?sort=nope`)).ids.slice(0, 4)).toEqual([137, 136, 134, 135])
  })

  it('cursor pages by the filter: every article once, forward and back; another ordering is 404', async () => {
    for (const sort of ['score', '-created', 'created,-score']) {
      const forward = await walkForward(`${base}/articles/walk/?sort=${sort}`)
      const ids = forward.flatMap((p) => p.ids)
      expect([sort, new Set(ids).size, ids.length]).toEqual([sort, 137, 137])
      const last = forward[forward.length - 1]
      if (last === undefined) throw new Error('no pages')
      expect((await walkBackward(last.url)).map((p) => p.ids)).toEqual(forward.map((p) => p.ids).reverse())
    }
    const next = (await fetchPage(`${base}/articles/walk/?sort=score`)).next ?? ''
    const swapped = new URL(next)
    swapped.searchParams.set('sort', '-score')
    const res = await fetchPage(swapped.toString())
    expect([res.status, res.body]).toEqual([404, { detail: 'Invalid cursor' }])
  })
})
