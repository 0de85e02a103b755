/**
 * Cost as the data grows (issue 40 item 4): the reference request (`GET /api/articles/?page=3`,
 * token auth) and a cursor page, on the reference API's 137-article seed and again after
 * 1,000,000 users, 1,000,000 tokens and 1,000,000 articles are loaded into the same database.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test \
 *     npx tsx bench/million.ts [--db sqlite|postgres|both] [--rows 1000000] [--requests 200]
 *       [--counts exact,cached:60000,capped:1000,estimated] [--sizes seed,loaded] [--warmup 2000] [--rounds 1]
 *       [--framework fastify] [--depth 50000] [--json out.json] [--no-callgrind]
 *
 * Per database and count strategy (`GATEHOUSE_COUNT`, which the global page-number style and
 * `/api/articles/filtered/` follow; `estimated` on PostgreSQL only), one
 * reference-API server runs under callgrind (`bench/callgrind.ts`); the figures are
 * load-independent:
 * - **node instructions per request** of the server process over `--requests` sequential
 *   requests (an idle window as long subtracted). On SQLite this includes the statements, which
 *   run in the process.
 * - on PostgreSQL, **rows and buffers per request** the database touched for it, from
 *   `pg_stat_database` (`tup_returned + tup_fetched`, `blks_hit + blks_read`) around the same
 *   window: what shows a `COUNT(*)` over the whole table.
 * The cursor page is `/api/articles/cursor/` (ordering `-created`): on the seed, page 2 (page 1's
 * `next`); at 1M rows, the page after depth `--depth` pages (a DRF cursor positioned at row
 * `depth × 10`, whose answer's `next` link is the measured, signed cursor).
 * `--no-callgrind` runs the servers at full speed and keeps PostgreSQL's counters only (the node
 * side's work does not grow with the tables; the statements' does).
 * `EXPLAIN` of the token lookup, the count and the cursor seek at 1M rows shows the plans.
 * Filtered pages (issue 42): `/api/articles/filtered/` with a `created` range (100 rows at any
 * size, `articles_created_id`) and with `?score=3` (a tenth of the rows, `articles_score_id`),
 * measured beside the unfiltered page 3 under every count strategy (their ratio to it is
 * printed), and `EXPLAIN` of their page and count statements. `--sizes loaded` skips the seed's
 * figures; `--warmup` is the uninstrumented requests before each window (at least twice
 * `--requests`); `--rounds N` measures N windows per route and keeps the lowest (a window that
 * caught V8 compiling, or autovacuum on PostgreSQL, reads high).
 *
 * Loading: PostgreSQL `INSERT … SELECT FROM generate_series` (a fresh `gh_million_<random>`
 * database, dropped at the end); SQLite one transaction of prepared inserts (a temporary file).
 * Users `u<id>`, one token per user (key: 40 hex characters from md5, digest its SHA-256, as the
 * token store keeps it), articles shaped as the seed's (reference-api/seed.ts `seedArticle`).
 */
import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { startInstance, type Instance } from '../scripts/multi-instance.js'
import { encodeDrfCursor } from '../src/pagination/drf-cursor.js'
import { freshPostgres, freshSqlite, type TestDatabase } from '../test/helpers/databases.js'
import { bundleForCallgrind, callgrindCommand, instructionsOver } from './callgrind.js'
import { BOB_TOKEN } from './wrk.js'

const REFERENCE = [new URL('../examples/reference-api/main.ts', import.meta.url).pathname, 'serve']
const PAGE3 = '/api/articles/?page=3'
const CURSOR = '/api/articles/cursor/'
/** Filtered pages (`/api/articles/filtered/`, counted as GATEHOUSE_COUNT says): a narrow `created` range (100 rows at any size) and `score` (a tenth of the rows). */
const FILTERED_RANGE = '/api/articles/filtered/?created__gte=2024-01-01T00:20:00Z&created__lt=2024-01-01T02:00:00Z&page=2'
const FILTERED_SCORE = '/api/articles/filtered/?score=3&page=2'
const HEADERS = { Authorization: `Token ${BOB_TOKEN}`, Accept: 'application/json' }
const EPOCH = Date.UTC(2024, 0, 1)
/** FILTERED_RANGE's bounds. */
const RANGE = [new Date(EPOCH + 20 * 60_000), new Date(EPOCH + 120 * 60_000)] as const

interface Options {
  dbs: ('sqlite' | 'postgres')[]
  rows: number
  requests: number
  counts: string[]
  framework: string
  depth: number
  sizes: ('seed' | 'loaded')[]
  warmup: number
  /** Windows per route; the figure is the lowest (a window that caught V8 compiling or autovacuum reads high). */
  rounds: number
  json: string | null
  /** Servers under callgrind (node instructions per request); off: PostgreSQL's counters only, servers at full speed. */
  callgrind: boolean
}

function parseArgs(argv: readonly string[]): Options {
  const o: Options = { dbs: ['sqlite', 'postgres'], rows: 1_000_000, requests: 200, counts: ['exact', 'cached:60000', 'estimated'], framework: 'fastify', depth: 50_000, sizes: ['seed', 'loaded'], warmup: 2000, rounds: 1, json: null, callgrind: true }
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]]
    if (flag === '--no-callgrind') {
      o.callgrind = false
      i--
      continue
    }
    if (value === undefined) throw new Error(`missing value for ${flag}`)
    if (flag === '--db') o.dbs = value === 'both' ? ['sqlite', 'postgres'] : [value as 'sqlite' | 'postgres']
    else if (flag === '--rows') o.rows = Number(value)
    else if (flag === '--requests') o.requests = Number(value)
    else if (flag === '--counts') o.counts = value.split(',')
    else if (flag === '--framework') o.framework = value
    else if (flag === '--depth') o.depth = Number(value)
    else if (flag === '--sizes') o.sizes = value.split(',').map((size) => {
      if (size !== 'seed' && size !== 'loaded') throw new Error(`--sizes: seed or loaded, got ${size}`)
      return size
    })
    else if (flag === '--warmup') o.warmup = Number(value)
    else if (flag === '--rounds') o.rounds = Number(value)
    else if (flag === '--json') o.json = value
    else throw new Error(`unknown option ${flag}`)
  }
  return o
}

/** The seed's article timestamp formula (`seedArticle`): minute i, pairs sharing one every 5. */
function created(i: number): Date {
  return new Date(EPOCH + (i % 5 === 0 ? i - 1 : i) * 60_000)
}

const md5 = (text: string): string => createHash('md5').update(text).digest('hex')
/** User `id`'s token key (40 hex characters) and digest; the PostgreSQL load computes the same in SQL. */
function tokenOf(id: number): { key: string; digest: string } {
  const key = md5(String(id)) + md5(`x${id}`).slice(0, 8)
  return { key, digest: createHash('sha256').update(key).digest('hex') }
}

/** Users, tokens and articles up to `rows` each, after the seed's (ids above the seed's). */
async function load(database: TestDatabase, rows: number): Promise<void> {
  const firstUser = 1001
  const lastUser = firstUser + rows - 1
  const firstArticle = 138
  if (database.name === 'postgres') {
    const { default: pg } = await import('pg')
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    try {
      await client.query('SET statement_timeout = 0')
      await client.query(
        `INSERT INTO gatehouse_users (id, username, password, is_active, is_staff, is_superuser, date_joined)
         SELECT i, 'u' || i, '!', 1, 0, 0, now() FROM generate_series($1::int, $2::int) AS s(i)`,
        [firstUser, lastUser],
      )
      await client.query(
        `INSERT INTO gatehouse_tokens (key, key_digest, user_id, created)
         SELECT k, encode(sha256(convert_to(k, 'UTF8')), 'hex'), i, now()
         FROM (SELECT i, md5(i::text) || substr(md5('x' || i::text), 1, 8) AS k FROM generate_series($1::int, $2::int) AS s(i)) t`,
        [firstUser, lastUser],
      )
      await client.query(
        `INSERT INTO articles (id, title, author_id, score, created)
         SELECT i, 'Article ' || i, $3::int + i % 1000, (i * 7) % 10,
           timestamptz '2024-01-01 00:00:00+00' + make_interval(mins => CASE WHEN i % 5 = 0 THEN i - 1 ELSE i END)
         FROM generate_series($1::int, $2::int) AS s(i)`,
        [firstArticle, rows, firstUser],
      )
      await client.query("SELECT setval(pg_get_serial_sequence('gatehouse_users', 'id'), $1::int)", [lastUser])
      await client.query("SELECT setval(pg_get_serial_sequence('articles', 'id'), $1::int)", [rows])
      // VACUUM sets the visibility map (index-only scans, COUNT(*)) as on a settled table; ANALYZE the planner's statistics.
      await client.query('VACUUM ANALYZE')
    } finally {
      await client.end()
    }
    return
  }
  const { default: SQLite } = await import('better-sqlite3')
  const db = new SQLite(database.url.replace(/^sqlite:(\/\/)?/, ''))
  try {
    const user = db.prepare("INSERT INTO gatehouse_users (id, username, password, is_active, is_staff, is_superuser, date_joined) VALUES (?, ?, '!', 1, 0, 0, ?)")
    const token = db.prepare('INSERT INTO gatehouse_tokens (key, key_digest, user_id, created) VALUES (?, ?, ?, ?)')
    const article = db.prepare('INSERT INTO articles (id, title, author_id, score, created) VALUES (?, ?, ?, ?, ?)')
    const now = new Date().toISOString()
    db.transaction(() => {
      for (let id = firstUser; id <= lastUser; id++) {
        user.run(id, `u${id}`, now)
        const { key, digest } = tokenOf(id)
        token.run(key, digest, id, now)
      }
      for (let i = firstArticle; i <= rows; i++) article.run(i, `Article ${i}`, firstUser + (i % 1000), (i * 7) % 10, created(i).toISOString())
    })()
    db.exec('ANALYZE')
    db.pragma('wal_checkpoint(TRUNCATE)')
  } finally {
    db.close()
  }
}

/** `pg_stat_database`'s rows and buffers of one database (as the backends last flushed them: see `measureWindow`). */
async function pgCounters(url: string): Promise<{ tuples: number; blocks: number }> {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ tuples: string; blocks: string }>(
      'SELECT tup_returned + tup_fetched AS tuples, blks_hit + blks_read AS blocks FROM pg_stat_database WHERE datname = current_database()',
    )
    return { tuples: Number(rows[0]?.tuples ?? 0), blocks: Number(rows[0]?.blocks ?? 0) }
  } finally {
    await client.end()
  }
}

/** EXPLAIN of the token lookup, the count, the cursor seek and the filtered pages, as the reference API's statements have them. */
async function explain(database: TestDatabase, digest: string, position: Date): Promise<string[]> {
  const token = 'SELECT t.key, u.id, u.username FROM gatehouse_tokens t JOIN gatehouse_users u ON u.id = t.user_id WHERE t.key_digest = $1'
  const count = 'SELECT count(*) FROM articles'
  const seek = 'SELECT a.id FROM articles a JOIN gatehouse_users u ON u.id = a.author_id WHERE a.created <= $1 AND (a.created < $1 OR a.id < $2) ORDER BY a.created DESC, a.id DESC LIMIT 11'
  const page = 'SELECT a.id, a.title, u.username, a.score, a.created FROM articles a JOIN gatehouse_users u ON u.id = a.author_id WHERE'
  // The source's `key: 'id'`: a page's ids from the articles alone, then those rows joined.
  const keyed = (where: string, offset: number): string => `${page} a.id IN (SELECT a.id FROM articles a ${where} ORDER BY a.id LIMIT 10 OFFSET ${offset}) ORDER BY a.id`
  const page3 = keyed('', 20)
  const rangePage = keyed('WHERE a.created >= $1 AND a.created < $2', 10)
  const rangeCount = 'SELECT count(*) FROM articles a WHERE a.created >= $1 AND a.created < $2'
  const scorePage = keyed('WHERE a.score = $1', 10)
  const scoreCount = 'SELECT count(*) FROM articles a WHERE a.score = $1'
  const sqlite = database.name === 'sqlite'
  const range = RANGE.map((d) => (sqlite ? d.toISOString() : d))
  const statements = [
    ['token lookup', token, [digest]],
    ['page 3', page3, []],
    ['count', count, []],
    ['cursor seek', seek, [sqlite ? position.toISOString() : position, 1e9]],
    ['filtered page (created range)', rangePage, range],
    ['filtered count (created range)', rangeCount, range],
    ['filtered page (score = 3)', scorePage, [3]],
    ['filtered count (score = 3)', scoreCount, [3]],
  ] as const
  const out: string[] = []
  if (database.name === 'postgres') {
    const { default: pg } = await import('pg')
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    try {
      for (const [name, text, values] of statements) {
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) ${text}`, [...values])
        out.push(`${name}:\n${rows.map((r) => `    ${r['QUERY PLAN']}`).join('\n')}`)
      }
    } finally {
      await client.end()
    }
    return out
  }
  const { default: SQLite } = await import('better-sqlite3')
  const db = new SQLite(database.url.replace(/^sqlite:(\/\/)?/, ''), { readonly: true })
  try {
    for (const [name, text, values] of statements) {
      // better-sqlite3 binds `?` in order: one value per occurrence of `$n`.
      const bound = [...text.matchAll(/\$(\d)/g)].map((m) => (values as readonly unknown[])[Number(m[1]) - 1])
      const plan = db.prepare(`EXPLAIN QUERY PLAN ${text.replaceAll(/\$\d/g, '?')}`).all(...bound) as { detail: string }[]
      out.push(`${name}:\n${plan.map((r) => `    ${r.detail}`).join('\n')}`)
    }
  } finally {
    db.close()
  }
  return out
}

async function get(server: Instance, path: string): Promise<{ status: number; body: string }> {
  let res: Response
  try {
    res = await fetch(`${server.baseUrl}${path}`, { headers: HEADERS })
  } catch {
    // A kept-alive socket the server closed while idle (ECONNRESET on reuse): once more, on a new one.
    res = await fetch(`${server.baseUrl}${path}`, { headers: HEADERS })
  }
  return { status: res.status, body: await res.text() }
}

/** The path of the cursor page to measure: page 2 on the seed, the page after `depth` pages at scale. */
async function cursorPath(server: Instance, rows: number | null, depth: number): Promise<string> {
  let first: string
  if (rows === null) first = CURSOR
  else {
    // A DRF cursor (`p=` the position, Django's str() of the timestamp) at row depth × 10 from the newest.
    const position = created(rows - depth * 10 + 1).toISOString().replace('T', ' ').replace('.000Z', '+00:00')
    first = `${CURSOR}?cursor=${encodeURIComponent(encodeDrfCursor({ offset: 0, reverse: false, position }))}`
  }
  const page = await get(server, first)
  if (page.status !== 200) throw new Error(`${first}: ${page.status} ${page.body.slice(0, 200)}`)
  const next = (JSON.parse(page.body) as { next: string | null }).next
  if (next === null) throw new Error(`${first}: no next page`)
  return next.slice(next.indexOf('/api/'))
}

interface Figure {
  db: string
  rows: string
  count: string
  route: string
  instructionsPerRequest: number
  /** The busy window's instructions per request before the idle rate is subtracted. */
  grossInstructionsPerRequest: number
  /** The idle window's instructions per ms (subtracted over the busy window's length). */
  idleInstructionsPerMs: number
  pgTuplesPerRequest: number | null
  pgBlocksPerRequest: number | null
}

async function measure(server: Instance, database: TestDatabase, tag: string | null, path: string, requests: number, warmup: number, rounds: number): Promise<Omit<Figure, 'db' | 'rows' | 'count' | 'route'>> {
  const run = async (): Promise<void> => {
    for (let i = 0; i < requests; i++) {
      const res = await get(server, path)
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.body.slice(0, 200)}`)
    }
  }
  // Warm-up, uninstrumented (and the cached count filled).
  for (let i = 0; i < Math.max(warmup, 2 * requests); i++) await get(server, path)
  const pid = server.child.pid ?? 0
  const postgres = database.name === 'postgres'
  let best: Omit<Figure, 'db' | 'rows' | 'count' | 'route'> | null = null
  for (let round = 0; round < rounds; round++) {
    const m = await measureWindow(server, tag, pid, postgres, database.url, run, requests)
    const key = (f: typeof m): number => (tag === null ? (f.pgTuplesPerRequest ?? 0) : f.instructionsPerRequest)
    if (best === null || key(m) < key(best)) best = m
  }
  if (best === null) throw new Error('--rounds must be at least 1')
  return best
}

/** One measured window of `run` (`requests` requests) after a settle and an idle window. */
async function measureWindow(
  server: Instance,
  tag: string | null,
  pid: number,
  postgres: boolean,
  url: string,
  run: () => Promise<void>,
  requests: number,
): Promise<Omit<Figure, 'db' | 'rows' | 'count' | 'route'>> {
  // Idle windows until the process is idle: right after the warm-up V8 finishes its background
  // compilation and its memory reducer collects once allocation stops, which under valgrind lasts
  // tens of seconds; an idle rate taken over that work, times a long busy window on a loaded
  // machine, exceeded the busy window's instructions (negative figures for page 3 at 1M rows).
  const idleMs = 3000
  let idleRate = NaN
  if (tag !== null) {
    for (let i = 0; i < 20; i++) {
      idleRate = (await instructionsOver(tag, pid, () => sleep(idleMs))) / idleMs
      if (idleRate < 1000) break
    }
  }
  // PostgreSQL 15's backends flush their counters at most once a second, and a backend that goes
  // idle within that second flushes 10 s later (PGSTAT_IDLE_INTERVAL): 11 s on each side keep the
  // warm-up's rows out of the window and the window's in (1.5 s gave 6 to 52 rows for one page).
  if (postgres) await sleep(11_000)
  const before = postgres ? await pgCounters(url) : null
  const started = performance.now()
  const busy = tag === null ? (await run(), NaN) : await instructionsOver(tag, pid, run)
  const idle = idleRate * (performance.now() - started)
  if (postgres) await sleep(11_000)
  const after = postgres ? await pgCounters(url) : null
  return {
    instructionsPerRequest: (busy - idle) / requests,
    grossInstructionsPerRequest: busy / requests,
    idleInstructionsPerMs: idleRate,
    // The two counter reads are one statement each: their own rows (one pg_stat_database row) are noise.
    pgTuplesPerRequest: before === null || after === null ? null : (after.tuples - before.tuples) / requests,
    pgBlocksPerRequest: before === null || after === null ? null : (after.blocks - before.blocks) / requests,
  }
}

async function runDatabase(options: Options, db: 'sqlite' | 'postgres'): Promise<{ figures: Figure[]; plans: string[] }> {
  const database = db === 'sqlite' ? freshSqlite() : await freshPostgres({ prefix: 'gh_million_' })
  const tag = `million-${process.pid}-${db}`
  const figures: Figure[] = []
  let plans: string[] = []
  const counts = options.counts.filter((c) => c !== 'estimated' || db === 'postgres')
  const env = { DATABASE_URL: database.url, REDIS_URL: undefined, LOG_LEVEL: undefined, GATEHOUSE_FRAMEWORK: options.framework }
  try {
    // Migrate and seed outside valgrind.
    await (await startInstance({ env, script: REFERENCE, startTimeoutMs: 240_000 })).stop()
    for (const size of options.sizes) {
      if (size === 'loaded') {
        const started = performance.now()
        await load(database, options.rows)
        process.stderr.write(`${db}: loaded ${options.rows} users, tokens and articles in ${((performance.now() - started) / 1000).toFixed(0)} s\n`)
        plans = await explain(database, createHash('sha256').update(BOB_TOKEN).digest('hex'), created(options.rows - options.depth * 10))
      }
      for (const count of counts) {
        const wrapper = options.callgrind ? { wrapper: callgrindCommand(tag) } : {}
        const script = options.callgrind ? [await bundleForCallgrind(REFERENCE[0] as string, 'reference-api-million'), 'serve'] : REFERENCE
        const server = await startInstance({ env: { ...env, GATEHOUSE_COUNT: count }, script, ...wrapper, startTimeoutMs: 900_000 })
        try {
          const cursor = await cursorPath(server, size === 'seed' ? null : options.rows, options.depth)
          const routes = [
            ['page 3', PAGE3],
            [size === 'seed' ? 'cursor page 2' : `cursor, depth ${options.depth}`, cursor],
            ['filtered page 2 (created range)', FILTERED_RANGE],
            ['filtered page 2 (score = 3)', FILTERED_SCORE],
          ] as const
          for (const [route, path] of routes) {
            // The cursor route does not count: measured once, under the first strategy.
            if (route.startsWith('cursor') && count !== counts[0]) continue
            const m = await measure(server, database, options.callgrind ? tag : null, path, options.requests, options.warmup, options.rounds)
            const figure = { db, rows: size === 'seed' ? '137 articles' : `${options.rows.toLocaleString('en-US')} each`, count, route, ...m }
            figures.push(figure)
            process.stderr.write(`${JSON.stringify(figure)}\n`)
          }
        } finally {
          await server.stop()
        }
      }
    }
  } finally {
    await database.drop()
  }
  return { figures, plans }
}

function table(figures: readonly Figure[]): string {
  const lines = [
    '| database | data | count | route | node instructions / request | (before the idle subtraction) | PostgreSQL rows / request | PostgreSQL buffers / request |',
    '|---|---|---|---|---|---|---|---|',
  ]
  const fmt = (n: number | null): string => (n === null || Number.isNaN(n) ? '–' : Math.round(n).toLocaleString('en-US'))
  for (const f of figures) lines.push(`| ${f.db} | ${f.rows} | ${f.count} | ${f.route} | ${fmt(f.instructionsPerRequest)} | ${fmt(f.grossInstructionsPerRequest)} | ${fmt(f.pgTuplesPerRequest)} | ${fmt(f.pgBlocksPerRequest)} |`)
  return lines.join('\n')
}

/** Each filtered page's figures over the unfiltered page 3's (same database, data and count strategy): issue 42 asks for at most 1.2. */
function ratios(figures: readonly Figure[]): string {
  const lines = ['| database | data | count | route | instructions ÷ page 3 | PostgreSQL rows ÷ page 3 | PostgreSQL buffers ÷ page 3 |', '|---|---|---|---|---|---|---|']
  const fmt = (a: number | null, b: number | null | undefined): string => (a === null || b === null || b === undefined || Number.isNaN(a) || Number.isNaN(b) || b === 0 ? '–' : (a / b).toFixed(2))
  for (const f of figures.filter((x) => x.route.startsWith('filtered'))) {
    const base = figures.find((x) => x.db === f.db && x.rows === f.rows && x.count === f.count && x.route === 'page 3')
    lines.push(`| ${f.db} | ${f.rows} | ${f.count} | ${f.route} | ${fmt(f.instructionsPerRequest, base?.instructionsPerRequest)} | ${fmt(f.pgTuplesPerRequest, base?.pgTuplesPerRequest)} | ${fmt(f.pgBlocksPerRequest, base?.pgBlocksPerRequest)} |`)
  }
  return lines.join('\n')
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2))
  const results: { db: string; figures: Figure[]; plans: string[] }[] = []
  for (const db of options.dbs) results.push({ db, ...(await runDatabase(options, db)) })
  const figures = results.flatMap((r) => r.figures)
  console.log(`${table(figures)}\n`)
  console.log(`${ratios(figures)}\n`)
  for (const r of results) console.log(`${r.db} at ${options.rows} rows:\n${r.plans.join('\n')}\n`)
  if (options.json !== null) writeFileSync(options.json, JSON.stringify({ options, results }, null, 2))
}

await main()
