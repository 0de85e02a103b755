/**
 * The whole core's load-independent figures for `GET /api/articles/?page=3` (token auth):
 * promises created and bytes allocated per request by `ApiView.handle` plus serialisation,
 * the `ApiRequest` built as an adapter builds it, over sequential requests in one process.
 * With `--sites`, where each promise is made (the top frames of its creation's stack), the
 * list to read when cutting promises.
 *
 *   DATABASE_URL=postgres://… npx tsx bench/core-figures.ts [--db sqlite|postgres|both] [--count 3000] [--sites]
 *
 * Bytes: heap growth plus what every collection in between freed (`v8.GCProfiler`), as
 * `stages.ts` counts them; promises: a V8 promise hook, on only while counting.
 */
import { GCProfiler, getHeapStatistics, promiseHooks } from 'node:v8'
import { openReferenceContext } from '../examples/reference-api/context.js'
import { articleRoutes } from '../examples/reference-api/routes/articles.js'
import { createApiRequest } from '../src/core/request/request-factory.js'
import { serializeBody } from '../src/core/api-response.js'
import type { ApiRequest } from '../src/index.js'
import { freshPostgres, freshSqlite } from '../test/helpers/databases.js'
import { BOB_TOKEN } from './wrk.js'

const HOST = '127.0.0.1:8000'
const HEADERS: Readonly<Record<string, string>> = { host: HOST, authorization: `Token ${BOB_TOKEN}`, accept: 'application/json' }
const request = (): ApiRequest =>
  createApiRequest({
    method: 'GET',
    url: new URL('/api/articles/?page=3', `http://${HOST}`),
    headers: { get: (name) => HEADERS[name.toLowerCase()] ?? null },
    remoteAddress: '127.0.0.1',
    readBody: async () => null,
  })

const args = process.argv.slice(2)
const flag = (name: string): string | undefined => {
  const i = args.indexOf(name)
  return i === -1 ? undefined : args[i + 1]
}
const dbs = (flag('--db') ?? 'both') === 'both' ? (['sqlite', 'postgres'] as const) : ([flag('--db')] as ('sqlite' | 'postgres')[])
const count = Number(flag('--count') ?? 3000)
const sites = args.includes('--sites')

for (const db of dbs) {
  const database = db === 'sqlite' ? freshSqlite() : await freshPostgres()
  const ref = await openReferenceContext({ databaseUrl: database.url, scrypt: { N: 1024, r: 8, p: 1 } })
  try {
    const view = articleRoutes(ref).find((r) => r.path === '/api/articles/')?.view
    if (view === undefined) throw new Error('no /api/articles/ route')
    const once = async (): Promise<void> => {
      serializeBody(await view.handle(request()))
    }
    for (let i = 0; i < Math.max(200, count / 10); i++) await once()
    const where = new Map<string, number>()
    let promises = 0
    const stop = promiseHooks.onInit(() => {
      promises++
      if (!sites) return
      const stack = (new Error().stack ?? '').split('\n').slice(2, 5).map((line) => line.trim().replace(/^at /, '')).join(' < ')
      where.set(stack, (where.get(stack) ?? 0) + 1)
    })
    const counted = Math.min(count, 500)
    for (let i = 0; i < counted; i++) await once()
    stop()
    const profiler = new GCProfiler()
    profiler.start()
    const before = getHeapStatistics().used_heap_size
    for (let i = 0; i < count; i++) await once()
    const after = getHeapStatistics().used_heap_size
    let freed = 0
    for (const gc of profiler.stop()?.statistics ?? []) freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize
    // The loop's own `async` wrapper and its `await` are counted too (2 promises, a few hundred bytes).
    console.log(`${db}: ${((after - before + freed) / count).toFixed(0)} bytes and ${(promises / counted).toFixed(1)} promises per request (whole core, ${count} requests)`)
    if (sites) for (const [stack, n] of [...where].sort((a, b) => b[1] - a[1])) console.log(`  ${(n / counted).toFixed(1)}  ${stack}`)
  } finally {
    await ref.close()
    await database.drop()
  }
}
