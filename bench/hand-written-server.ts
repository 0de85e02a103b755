/**
 * The hand-written baseline of `bench/side-by-side.ts`: the least work that gives the same
 * answer as the reference API's `GET /api/articles/?page=N` with token authentication, on
 * Fastify with the driver used directly (no gatehouse, no Kysely).
 *
 *   DATABASE_URL=… npx tsx bench/hand-written-server.ts --port 0
 *
 * Per request: one token⋈user statement, then `COUNT(*)` of the table and the page query
 * concurrently (PostgreSQL; better-sqlite3 is synchronous). Statements are prepared once
 * (better-sqlite3) or named so the server prepares them once per connection (pg).
 * Only what this route needs: other paths are 404, other errors are bare 401/404 bodies.
 *
 * `--framework express` serves the same handler on Express 5 instead (issue 40 item 2: what
 * gatehouse's Express adapter is measured against): the same statements, the same JSON, written
 * the way an Express user would (`res.json`), with `etag` and `x-powered-by` off as in the
 * reference API's Express app.
 */
import { createHash } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import express from 'express'
import Fastify from 'fastify'

const PAGE_SIZE = 10

interface Row {
  id: number
  title: string
  author: string
  score: number
  created: Date | string
}

/** What the handler needs of a database: the three statements. */
interface Queries {
  userByTokenDigest(digest: string): Promise<{ id: number; username: string; is_active: number } | undefined>
  countArticles(): Promise<number>
  articlesPage(offset: number): Promise<Row[]>
  close(): Promise<void>
}

const TOKEN_USER = 'SELECT u.id, u.username, u.is_active FROM gatehouse_tokens t JOIN gatehouse_users u ON u.id = t.user_id WHERE t.key_digest = $1'
const COUNT = 'SELECT count(*) AS n FROM articles'
const PAGE =
  'SELECT a.id, a.title, u.username AS author, a.score, a.created FROM articles a JOIN gatehouse_users u ON u.id = a.author_id ORDER BY a.id LIMIT 10 OFFSET $1'

async function openQueries(url: string): Promise<Queries> {
  if (url.startsWith('postgres')) {
    const { default: pg } = await import('pg')
    const pool = new pg.Pool({ connectionString: url, max: 10 })
    return {
      async userByTokenDigest(digest) {
        const res = await pool.query({ name: 'token_user', text: TOKEN_USER, values: [digest] })
        return res.rows[0] as { id: number; username: string; is_active: number } | undefined
      },
      async countArticles() {
        const res = await pool.query({ name: 'count_articles', text: COUNT })
        return Number((res.rows[0] as { n: string }).n)
      },
      async articlesPage(offset) {
        const res = await pool.query({ name: 'articles_page', text: PAGE, values: [offset] })
        return res.rows as Row[]
      },
      close: () => pool.end(),
    }
  }
  const path = url.startsWith('sqlite:') ? url.slice('sqlite:'.length).replace(/^\/\//, '') : url
  const { default: SQLite } = await import('better-sqlite3')
  const db = new SQLite(path)
  db.pragma('journal_mode = WAL')
  const tokenUser = db.prepare(TOKEN_USER.replace('$1', '?'))
  const count = db.prepare(COUNT)
  const page = db.prepare(PAGE.replace('$1', '?'))
  return {
    userByTokenDigest: async (digest) => tokenUser.get(digest) as { id: number; username: string; is_active: number } | undefined,
    countArticles: async () => (count.get() as { n: number }).n,
    articlesPage: async (offset) => page.all(offset) as Row[],
    close: async () => void db.close(),
  }
}

/** DRF's DateTimeField output (the reference API's `formatCreated`). */
function formatCreated(value: Date | string): string {
  const date = value instanceof Date ? value : new Date(value)
  const iso = date.toISOString()
  return date.getUTCMilliseconds() === 0 ? `${iso.slice(0, 19)}Z` : `${iso.slice(0, 23)}000Z`
}

/** The same handler on Express 5: `req.query`, `res.json`. */
async function serveExpress(queries: Queries, port: number): Promise<void> {
  const app = express()
  app.disable('etag')
  app.disable('x-powered-by')
  // Express 5 passes a rejected promise (a failed statement) to its error handler.
  app.get('/api/articles/', async (req, res) => {
    const header = req.headers.authorization ?? ''
    const key = header.startsWith('Token ') ? header.slice(6) : ''
    const user = key === '' ? undefined : await queries.userByTokenDigest(createHash('sha256').update(key).digest('hex'))
    if (user === undefined || !user.is_active) return void res.status(401).json({ detail: 'Invalid token.' })
    const raw = req.query['page']
    const page = raw === undefined ? 1 : Number(raw)
    const [count, rows] = await Promise.all([queries.countArticles(), queries.articlesPage((page - 1) * PAGE_SIZE)])
    const pages = Math.ceil(Math.max(1, count) / PAGE_SIZE)
    if (!Number.isInteger(page) || page < 1 || page > pages) return void res.status(404).json({ detail: 'Invalid page.' })
    const base = `http://${req.headers.host ?? 'localhost'}/api/articles/`
    res.json({
      count,
      next: page < pages ? `${base}?page=${page + 1}` : null,
      previous: page === 1 ? null : page === 2 ? base : `${base}?page=${page - 1}`,
      results: rows.map((r) => ({ id: r.id, title: r.title, author: r.author, score: r.score, created: formatCreated(r.created) })),
    })
  })
  const server = app.listen(port, '127.0.0.1')
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject))
  console.log(`hand-written Express baseline listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`)
  const stop = (): void => {
    server.close()
    server.closeAllConnections()
    void queries.close().then(() => process.exit(0))
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}

async function main(): Promise<void> {
  const portIndex = process.argv.indexOf('--port')
  const port = portIndex === -1 ? 8000 : Number(process.argv[portIndex + 1])
  const url = process.env['DATABASE_URL'] ?? 'sqlite:gatehouse.sqlite3'
  const queries = await openQueries(url)
  const frameworkIndex = process.argv.indexOf('--framework')
  if (frameworkIndex !== -1 && process.argv[frameworkIndex + 1] === 'express') return serveExpress(queries, port)
  const app = Fastify()
  app.get('/api/articles/', async (request, reply) => {
    const header = request.headers.authorization ?? ''
    const key = header.startsWith('Token ') ? header.slice(6) : ''
    const user = key === '' ? undefined : await queries.userByTokenDigest(createHash('sha256').update(key).digest('hex'))
    if (user === undefined || !user.is_active) return reply.code(401).header('content-type', 'application/json').send('{"detail":"Invalid token."}')
    const raw = (request.query as Record<string, string | undefined>)['page']
    const page = raw === undefined ? 1 : Number(raw)
    const [count, rows] = await Promise.all([queries.countArticles(), queries.articlesPage((page - 1) * PAGE_SIZE)])
    const pages = Math.ceil(Math.max(1, count) / PAGE_SIZE)
    if (!Number.isInteger(page) || page < 1 || page > pages) return reply.code(404).header('content-type', 'application/json').send('{"detail":"Invalid page."}')
    const base = `http://${request.headers.host ?? 'localhost'}/api/articles/`
    const body = {
      count,
      next: page < pages ? `${base}?page=${page + 1}` : null,
      previous: page === 1 ? null : page === 2 ? base : `${base}?page=${page - 1}`,
      results: rows.map((r) => ({ id: r.id, title: r.title, author: r.author, score: r.score, created: formatCreated(r.created) })),
    }
    return reply.header('content-type', 'application/json').send(JSON.stringify(body))
  })
  const address = await app.listen({ port, host: '127.0.0.1' })
  console.log(`hand-written baseline listening on ${address}`)
  const stop = (): void => {
    void app.close().then(() => queries.close()).then(() => process.exit(0))
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}

await main()
