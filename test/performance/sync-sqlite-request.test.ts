/**
 * On SQLite (a synchronous driver) with memory throttles, a token-authenticated paginated
 * request runs through `ApiView.handle` without a single promise: the token⋈user lookup
 * (through `chainTokenStores` and the named-token store's `touch`), the count and the page
 * (a prepared page source) and a memory throttle all answer synchronously, and the core
 * chains them without awaiting. An `async` wrapper or a `Promise.resolve` reintroduced
 * anywhere on that path makes a promise and fails these tests (counted by a V8 promise
 * hook, on only around the one synchronous call: nothing else can run during it).
 */
import { promiseHooks } from 'node:v8'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IsAuthenticated, listHandler, MemoryThrottleStore, UserRateThrottle, type ApiRequest, type ApiResponse, type ApiView } from '../../src/index.js'
import { serializeBody } from '../../src/core/api-response.js'
import type { MaybePromise } from '../../src/core/maybe-promise.js'
import { openReferenceContext, type ReferenceContext } from '../../examples/reference-api/context.js'
import { articleRoutes, articleSources, serializeArticle } from '../../examples/reference-api/routes/articles.js'
import { buildRequest } from '../helpers/build-request.js'
import { freshSqlite, type TestDatabase } from '../helpers/databases.js'

const BOB_TOKEN = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'
const HOST = '127.0.0.1:8000'

function request(key: string, path = '/api/articles/?page=3'): ApiRequest {
  return buildRequest({ url: `http://${HOST}${path}`, headers: { host: HOST, authorization: `Token ${key}`, accept: 'application/json' } })
}

/** `view.handle(req)` and how many promises it made while it ran (it must not be awaited to count them). */
function handleCounting(view: ApiView, req: ApiRequest): { answer: MaybePromise<ApiResponse>; promises: number } {
  let promises = 0
  const stop = promiseHooks.onInit(() => {
    promises++
  })
  try {
    return { answer: view.handle(req), promises }
  } finally {
    stop()
  }
}

/** The page's body, once it is known to be a synchronous answer. */
function pageOf(answer: MaybePromise<ApiResponse>): { count: number; next: string | null; previous: string | null; results: { id: number }[] } {
  expect(answer).not.toBeInstanceOf(Promise)
  const response = answer as ApiResponse
  expect(response.status).toBe(200)
  return JSON.parse(serializeBody(response) as string) as { count: number; next: string | null; previous: string | null; results: { id: number }[] }
}

describe('a SQLite token-authenticated page through ApiView.handle', () => {
  let database: TestDatabase
  let ref: ReferenceContext
  let list: ApiView

  beforeAll(async () => {
    database = freshSqlite()
    ref = await openReferenceContext({ databaseUrl: database.url, scrypt: { N: 1024, r: 8, p: 1 } })
    const found = articleRoutes(ref).find((r) => r.path === '/api/articles/')?.view
    if (found === undefined) throw new Error('no /api/articles/ route')
    list = found
  })

  afterAll(async () => {
    await ref.close()
    await database.drop()
  })

  /** Until its first statements, the dialect does not know whether the Kysely instance logs: those go through Kysely. */
  async function warm(view: ApiView, key: string): Promise<void> {
    for (let i = 0; i < 3; i++) expect((await view.handle(request(key))).status).toBe(200)
  }

  it('a DRF token: answers synchronously, with no promise made', async () => {
    await warm(list, BOB_TOKEN)
    const { answer, promises } = handleCounting(list, request(BOB_TOKEN))
    const page = pageOf(answer)
    expect(promises).toBe(0)
    expect(page.count).toBeGreaterThan(20)
    expect(page.results.map((r) => r.id)).toEqual(Array.from({ length: 10 }, (_, i) => 21 + i))
    expect(page.next).toBe(`http://${HOST}/api/articles/?page=4`)
    expect(page.previous).toBe(`http://${HOST}/api/articles/?page=2`)
  })

  it('a named token (the second store of the chain, then its touch): synchronous once its last-used time is written', async () => {
    const bob = await ref.users.findByUsername('bob')
    if (bob === null) throw new Error('no bob')
    const { key } = await ref.namedTokens.create(bob.id, { name: 'sync-test' })
    // The first request writes the last-used time (a promise); the next ones within the interval write nothing.
    await warm(list, key)
    const { answer, promises } = handleCounting(list, request(key))
    expect(pageOf(answer).results).toHaveLength(10)
    expect(promises).toBe(0)
  })

  it('with a memory user-rate throttle on the view: still synchronous, and the throttle counts', async () => {
    const throttleStore = new MemoryThrottleStore()
    const throttled = ref.api.view({
      name: 'Throttled Articles',
      permissions: [new IsAuthenticated()],
      throttles: [new UserRateThrottle({ store: throttleStore, rate: '1000/hour' })],
      handlers: { GET: listHandler({ source: articleSources(ref), serialize: serializeArticle }) },
    })
    await warm(throttled, BOB_TOKEN)
    const { answer, promises } = handleCounting(throttled, request(BOB_TOKEN))
    expect(pageOf(answer).results).toHaveLength(10)
    expect(promises).toBe(0)
    expect(throttleStore.size).toBe(1)
  })
})
