/**
 * Where a request's node CPU goes, stage by stage, for gatehouse and for the hand-written
 * baseline (`hand-written-server.ts`), in one process on one fresh database: each stage is run
 * alone `--count` times (awaited one after another) and its CPU time (`process.cpuUsage`,
 * user + system) divided by the count; stages alternate over `--rounds` and the median is
 * reported. The companion of `side-by-side.ts`, whose node CPU per request over HTTP minus
 * "whole core" here is the framework and adapter (in and out).
 *
 *   DATABASE_URL=postgres://… npx tsx bench/stages.ts [--db sqlite|postgres|both] [--count 20000] [--rounds 3] [--json out.json]
 *
 * Copied into a checkout of an older commit (and run there), it measures that commit's stages.
 *
 * Stages (µs per request):
 * - `sql token⋈user`: gatehouse's `KyselyTokenStore.findWithUser` / the baseline's statement (+ SHA-256).
 * - `sql count + page`: the list source's `count()` and `slice()` together / the baseline's two statements.
 * - `authentication`: `TokenAuthentication.authenticate` (header parsing, digest, the lookup, checks).
 * - `policies`: host check, authentication, permissions and throttles (`Policies.check`).
 * - `pagination + links`: the page-number paginator over rows in memory (no SQL): `page`, the arithmetic, both links.
 * - `adapter in`: the `ApiRequest` from a URL and headers (`createApiRequest`, as the adapters call it).
 * - `serialisation`: the page body to JSON text.
 * - `whole core`: the view's `handle` (everything but the framework) / the baseline handler's body.
 * The answer of the whole core is checked to equal the baseline's byte for byte first.
 *
 * Beside CPU, each stage reports bytes allocated on the JavaScript heap per call (`v8.GCProfiler`:
 * heap growth plus what collections freed, which load does not move) and promises created per
 * call (a V8 promise hook, on only while those calls run; the loop's own `await` adds one per
 * call to a stage that returns a plain value).
 */
import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { openReferenceContext, type ReferenceContext } from '../examples/reference-api/context.js'
import { articleRoutes } from '../examples/reference-api/routes/articles.js'
import { ArrayPageSource, PageNumberPagination, type ApiRequest, type ApiView, type PageSource, type RequestContext } from '../src/index.js'
import { createApiRequest } from '../src/core/request/request-factory.js'
import { serializeBody } from '../src/core/api-response.js'
import { freshPostgres, freshSqlite, type TestDatabase } from '../test/helpers/databases.js'
import { bytesPerCall, cpuPerCall, promisesPerCall } from './per-call.js'
import { handHandle, handQueries, type HandQueries } from './hand-core.js'
import { BOB_TOKEN } from './wrk.js'

interface Options {
  dbs: ('sqlite' | 'postgres')[]
  count: number
  rounds: number
  json: string | null
}

function parseArgs(argv: readonly string[]): Options {
  const o: Options = { dbs: ['sqlite', 'postgres'], count: 20_000, rounds: 3, json: null }
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]]
    if (value === undefined) throw new Error(`missing value for ${flag}`)
    if (flag === '--db') o.dbs = value === 'both' ? ['sqlite', 'postgres'] : [value as 'sqlite' | 'postgres']
    else if (flag === '--count') o.count = Number(value)
    else if (flag === '--rounds') o.rounds = Number(value)
    else if (flag === '--json') o.json = value
    else throw new Error(`unknown option ${flag}`)
  }
  return o
}

const HOST = '127.0.0.1:8000'
const PATH = '/api/articles/?page=3'
const HEADERS: Readonly<Record<string, string>> = { host: HOST, authorization: `Token ${BOB_TOKEN}`, accept: 'application/json' }

/** The ApiRequest an adapter builds for the benchmark's request. */
function apiRequest(): ApiRequest {
  return createApiRequest({
    method: 'GET',
    url: new URL(PATH, `http://${HOST}`),
    headers: { get: (name) => HEADERS[name.toLowerCase()] ?? null },
    remoteAddress: '127.0.0.1',
    readBody: async () => null,
  })
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2
}

type Metric = 'cpu' | 'bytes' | 'promises'
const METRICS: readonly Metric[] = ['cpu', 'bytes', 'promises']
const MEASURE: Readonly<Record<Metric, (count: number, fn: () => Promise<unknown> | unknown) => Promise<number>>> = { cpu: cpuPerCall, bytes: bytesPerCall, promises: promisesPerCall }
interface Row {
  stage: string
  gatehouse: number | null
  hand: number | null
  gatehouseBytes: number | null
  handBytes: number | null
  gatehousePromises: number | null
  handPromises: number | null
}

type Stage = { readonly name: string; readonly gatehouse: (() => Promise<unknown> | unknown) | null; readonly hand: (() => Promise<unknown> | unknown) | null }

async function stagesFor(ref: ReferenceContext, q: HandQueries): Promise<{ stages: Stage[]; view: ApiView }> {
  const listRoute = articleRoutes(ref).find((r) => r.path === '/api/articles/')
  if (listRoute === undefined) throw new Error('no /api/articles/ route')
  const { view } = listRoute
  const req = apiRequest()
  const findWithUser = ref.tokens.findWithUser
  if (findWithUser === undefined) throw new Error('the token store has no findWithUser')
  const passed = await view.policies.run(req)
  if (passed.context === null) throw new Error(`the policies refused the benchmark request: ${passed.response.status}`)
  // `articleSources` (prepared once) where the checkout has it; an older one builds a source per request.
  const articles = (await import('../examples/reference-api/routes/articles.js')) as Record<string, unknown>
  const source =
    typeof articles['articleSources'] === 'function'
      ? (articles['articleSources'] as (r: ReferenceContext) => (ctx: RequestContext) => PageSource<unknown>)(ref)
      : (ctx: RequestContext): PageSource<unknown> => (articles['articleSource'] as (r: ReferenceContext, c: RequestContext) => PageSource<unknown>)(ref, ctx)
  const ctx: RequestContext = passed.context
  const response = await view.handle(req)
  const paginator = new PageNumberPagination({ pageSize: 10 })
  const memory = new ArrayPageSource(await source(ctx).slice(0, 137))
  const handBody = await handHandle(q, `Token ${BOB_TOKEN}`, HOST, '3')
  const stages: Stage[] = [
    { name: 'sql token⋈user', gatehouse: () => findWithUser(BOB_TOKEN), hand: () => q.token(createHash('sha256').update(BOB_TOKEN).digest('hex')) },
    {
      name: 'sql count + page',
      gatehouse: () => {
        const s = source(ctx)
        return Promise.all([s.count(), s.slice(20, 10)])
      },
      hand: () => Promise.all([q.count(), q.page(20)]),
    },
    { name: 'authentication', gatehouse: () => ref.schemes.token.authenticate(req), hand: null },
    { name: 'policies (incl. authentication)', gatehouse: () => view.policies.run(req), hand: null },
    {
      // The paginator over rows already in memory: parsing `page`, the page arithmetic and both links.
      name: 'pagination + links (no SQL)',
      gatehouse: async () => {
        const page = await paginator.paginate(memory, req)
        if (page === null) throw new Error('no page')
        return paginator.paginatedResponse(page, page.items)
      },
      hand: null,
    },
    { name: 'adapter in (ApiRequest)', gatehouse: () => apiRequest(), hand: null },
    { name: 'serialisation', gatehouse: () => serializeBody(response), hand: () => JSON.stringify(JSON.parse(handBody)) },
    { name: 'whole core', gatehouse: async () => serializeBody(await view.handle(apiRequest())), hand: () => handHandle(q, `Token ${BOB_TOKEN}`, HOST, '3') },
  ]
  return { stages, view }
}

async function runDatabase(options: Options, db: 'sqlite' | 'postgres'): Promise<{ db: string; rows: Row[] }> {
  const database: TestDatabase = db === 'sqlite' ? freshSqlite() : await freshPostgres()
  const ref = await openReferenceContext({ databaseUrl: database.url, scrypt: { N: 1024, r: 8, p: 1 } })
  const q = await handQueries(database.url)
  try {
    const { stages, view } = await stagesFor(ref, q)
    const gatehouseBody = serializeBody(await view.handle(apiRequest()))
    const handBody = await handHandle(q, `Token ${BOB_TOKEN}`, HOST, '3')
    if (gatehouseBody !== handBody) throw new Error(`the answers differ:\n${gatehouseBody}\n${handBody}`)
    // samples[stage][metric] = { gatehouse: [...], hand: [...] }
    const samples = new Map<string, Record<Metric, { gatehouse: number[]; hand: number[] }>>()
    for (const stage of stages) samples.set(stage.name, { cpu: { gatehouse: [], hand: [] }, bytes: { gatehouse: [], hand: [] }, promises: { gatehouse: [], hand: [] } })
    for (const stage of stages) {
      // Warm-up.
      if (stage.gatehouse !== null) await cpuPerCall(Math.ceil(options.count / 10), stage.gatehouse)
      if (stage.hand !== null) await cpuPerCall(Math.ceil(options.count / 10), stage.hand)
    }
    for (let round = 0; round < options.rounds; round++) {
      for (const stage of round % 2 === 0 ? stages : [...stages].reverse()) {
        const s = samples.get(stage.name)
        if (s === undefined) continue
        // Promises are counted on the last round only: the hook slows everything, and the count does not vary.
        for (const metric of METRICS) {
          if (metric === 'promises' && round !== options.rounds - 1) continue
          const count = metric === 'promises' ? Math.min(options.count, 2_000) : options.count
          if (stage.gatehouse !== null) s[metric].gatehouse.push(await MEASURE[metric](count, stage.gatehouse))
          if (stage.hand !== null) s[metric].hand.push(await MEASURE[metric](count, stage.hand))
        }
      }
      process.stderr.write(`${db}: round ${round + 1} done\n`)
    }
    const med = (values: number[] | undefined): number | null => (values === undefined || values.length === 0 ? null : median(values))
    return {
      db,
      rows: stages.map((stage) => {
        const s = samples.get(stage.name)
        return {
          stage: stage.name,
          gatehouse: med(s?.cpu.gatehouse),
          hand: med(s?.cpu.hand),
          gatehouseBytes: med(s?.bytes.gatehouse),
          handBytes: med(s?.bytes.hand),
          gatehousePromises: med(s?.promises.gatehouse),
          handPromises: med(s?.promises.hand),
        }
      }),
    }
  } finally {
    await q.close()
    await ref.close()
    await database.drop()
  }
}

function report(result: { db: string; rows: Row[] }, options: Options): string {
  const fmt = (v: number | null, digits = 1): string => (v === null ? '–' : v.toFixed(digits))
  return [
    `### ${result.db === 'postgres' ? 'PostgreSQL' : 'SQLite'}: per request by stage (\`GET ${PATH}\`, ${options.count} calls, median of ${options.rounds})`,
    '',
    '| stage | gatehouse CPU µs | hand-written CPU µs | gatehouse bytes | hand-written bytes | gatehouse promises | hand-written promises |',
    '|---|---|---|---|---|---|---|',
    ...result.rows.map(
      (r) => `| ${r.stage} | ${fmt(r.gatehouse)} | ${fmt(r.hand)} | ${fmt(r.gatehouseBytes, 0)} | ${fmt(r.handBytes, 0)} | ${fmt(r.gatehousePromises)} | ${fmt(r.handPromises)} |`,
    ),
  ].join('\n')
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2))
  const results = []
  for (const db of options.dbs) results.push(await runDatabase(options, db))
  for (const r of results) console.log(`${report(r, options)}\n`)
  if (options.json !== null) writeFileSync(options.json, JSON.stringify({ options, results }, null, 2))
}

await main()
