/**
 * The whole core's load-independent figures for `GET /api/articles/?page=3` (token auth):
 * promises created and bytes allocated per request by `ApiView.handle` plus serialisation,
 * the `ApiRequest` built as an adapter builds it, over sequential requests in one process.
 * With `--sites`, where each promise is made (the top frames of its creation's stack), the
 * list to read when cutting promises.
 *
 *   DATABASE_URL=postgres://… npx tsx bench/core-figures.ts [--db sqlite|postgres|both] [--count 3000] [--sites]
 *
 * Bytes and promises are counted as every benchmark script counts them (`per-call.ts`).
 */
import { openReferenceContext } from '../examples/reference-api/context.js'
import { articleRoutes } from '../examples/reference-api/routes/articles.js'
import { createApiRequest } from '../src/core/request/request-factory.js'
import { serializeBody } from '../src/core/api-response.js'
import type { ApiRequest } from '../src/index.js'
import { freshPostgres, freshSqlite } from '../test/helpers/databases.js'
import { bytesPerCall, promisesPerCall } from './per-call.js'
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
    const counted = Math.min(count, 500)
    const promises = await promisesPerCall(counted, once, sites ? where : undefined)
    const bytes = await bytesPerCall(count, once)
    // The loop's own `async` wrapper and its `await` are counted too (2 promises, a few hundred bytes).
    console.log(`${db}: ${bytes.toFixed(0)} bytes and ${promises.toFixed(1)} promises per request (whole core, ${count} requests)`)
    if (sites) for (const [stack, n] of [...where].sort((a, b) => b[1] - a[1])) console.log(`  ${(n / counted).toFixed(1)}  ${stack}`)
  } finally {
    await ref.close()
    await database.drop()
  }
}
