/**
 * The reference API's filtered list as an own route on each framework, over SQL: the app's own
 * handler behind `policies(api, { pagination, filters, search, ordering })` calls
 * `paginatedList(…, { filters, search, ordering })` over the reference API's Kysely source on
 * SQLite and PostgreSQL, on Fastify, Express, Hono and node:http over real sockets. Each answers every request
 * (filters, search, ordering, bad values, pages, the next links followed) byte for byte as the
 * reference API's `/api/articles/filtered/` view does, which test/oracle/filtering-oracle.test.ts
 * compares with DRF and django-filter.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { serve, type ServerType } from '@hono/node-server'
import express from 'express'
import Fastify from 'fastify'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PageNumberPagination, paginatedList, type ApiResponse, type RequestContext } from 'drf-gatehouse'
import * as ex from 'drf-gatehouse/express'
import * as fa from 'drf-gatehouse/fastify'
import * as ho from 'drf-gatehouse/hono'
import * as no from 'drf-gatehouse/node'
import { ARTICLE_FILTERS, ARTICLE_SEARCH, articleSources, ORDERED, serializeArticle } from '../../examples/reference-api/routes/articles.js'
import { BACKENDS } from '../helpers/databases.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { backendUnavailable } from '../helpers/requirements.js'

const PATH = '/api/articles/filtered/'

/** Requests to both: each filter type, several at once, the search, the ordering, bad values, pages. */
const QUERIES: readonly string[] = [
  '',
  '?score=7',
  '?score__gte=8&score__lt=9&ordering=-id',
  '?id__in=1,2,3,50,x',
  '?id__in=3,,5,7&page_size=2',
  '?title__icontains=article%2001&search=alice',
  '?title__istartswith=ARTICLE%2013&ordering=-score,id',
  '?created__gte=2024-01-01T00:30&created__lt=2024-01-01T01:00:00Z',
  '?created__lt=2024-01-01',
  '?search=bob,%2012&page=2',
  '?search=%25&score=',
  '?score=abc&score__gte=1e51&created__lt=soon&title=x%00y',
  '?page=99&score=3',
]

interface Running {
  readonly baseUrl: string
  close(): Promise<void>
}

/** Status, Content-Type and body text of `url`, the server's origin masked; and the next link. */
async function answer(url: string): Promise<{ wire: string; next: string | null }> {
  const res = await fetch(url)
  const text = await res.text()
  const origin = new URL(url).origin
  const next = res.status === 200 ? ((JSON.parse(text) as { next: string | null }).next ?? null) : null
  return { wire: `${res.status} ${res.headers.get('content-type')} ${text.replaceAll(origin, '<server>')}`, next }
}

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`the filtered articles as an own route over ${backend.name} answer as the reference API's view`, () => {
    let reference: RunningReference
    const apps = new Map<string, Running>()

    beforeAll(async () => {
      reference = await startReference(await backend.create())
      const ref = reference.ref
      const api = ref.api
      const source = articleSources(ref)
      // The reference view's paginator, filters, search and ordering.
      const options = {
        pagination: new PageNumberPagination({ pageSize: 10, pageSizeQueryParam: 'page_size', maxPageSize: 25, lastPageStrings: ['last', 'end'] }),
        filters: ARTICLE_FILTERS,
        search: ARTICLE_SEARCH,
        ordering: ORDERED,
      }
      const handle = (ctx: RequestContext): Promise<ApiResponse> =>
        paginatedList(ctx, ctx.settings.pagination, source(ctx), serializeArticle, { filters: ARTICLE_FILTERS, search: ARTICLE_SEARCH, ordering: ORDERED })
      const listen = async (server: Server | ServerType): Promise<string> => {
        if (!server.listening) await new Promise<void>((resolve) => server.once('listening', () => resolve()))
        return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      }
      const closing = (server: Server | ServerType) => (): Promise<void> => new Promise((resolve) => server.close(() => resolve()))

      const fastify = Fastify()
      await fastify.register(fa.drfErrors, { api })
      fastify.get(PATH, { preHandler: fa.policies(api, options) }, async (request, reply) => fa.sendApiResponse(reply, await handle(fa.requestContext(request))))
      await fastify.listen({ port: 0, host: '127.0.0.1' })
      apps.set('fastify', { baseUrl: `http://127.0.0.1:${(fastify.server.address() as AddressInfo).port}`, close: () => fastify.close() })

      const exApp = express()
      exApp.disable('x-powered-by')
      exApp.get(PATH, ex.policies(api, options), (req, res, next) => {
        handle(ex.requestContext(req)).then((response) => ex.sendApiResponse(res, response), next)
      })
      exApp.use(ex.errorHandler(api))
      const exServer = createServer(exApp).listen(0, '127.0.0.1')
      apps.set('express', { baseUrl: await listen(exServer), close: closing(exServer) })

      const hono = new Hono<ho.GatehouseEnv>({ strict: true })
      hono.get(PATH, ho.policies(api, options), async (c) => ho.sendApiResponse(c, await handle(ho.requestContext(c))))
      hono.onError(ho.errorHandler(api))
      const honoServer = serve({ fetch: hono.fetch, port: 0, hostname: '127.0.0.1' })
      apps.set('hono', { baseUrl: await listen(honoServer), close: closing(honoServer) })

      const guarded = no.policies(api, { ...options, path: PATH })(async (req, res) => no.sendApiResponse(res, await handle(no.requestContext(req))))
      const nodeServer = createServer((req, res) => void guarded(req, res)).listen(0, '127.0.0.1')
      apps.set('node', { baseUrl: await listen(nodeServer), close: closing(nodeServer) })
    }, 90_000)
    afterAll(async () => {
      await Promise.all([...apps.values()].map((app) => app.close()))
      await reference?.close()
    })

    it('on Fastify, Express, Hono and node:http: every request, and the next links followed', async () => {
      const problems: string[] = []
      let compared = 0
      for (const query of QUERIES) {
        // Follow the view's next links (two at most), the own route's beside them.
        let theirs: string | null = `${reference.baseUrl}${PATH}${query}`
        const ours = new Map([...apps].map(([name, app]) => [name, `${app.baseUrl}${PATH}${query}`] as [string, string | null]))
        for (let hop = 0; hop < 3 && theirs !== null; hop++) {
          const expected = await answer(theirs)
          for (const [name, url] of ours) {
            if (url === null) {
              problems.push(`${name} ${query} hop ${hop}: no next link`)
              continue
            }
            const got = await answer(url)
            compared++
            if (got.wire !== expected.wire) problems.push(`${name} ${query} hop ${hop}:\n  view: ${expected.wire.slice(0, 300)}\n  own:  ${got.wire.slice(0, 300)}`)
            ours.set(name, got.next)
          }
          theirs = expected.next
        }
      }
      expect(problems).toEqual([])
      expect(compared).toBeGreaterThan(QUERIES.length * 4)
    }, 120_000)
  })
}
