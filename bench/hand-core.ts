/**
 * The hand-written baseline's work for `GET /api/articles/?page=N` without a framework (what
 * `hand-written-server.ts` does inside its Fastify handler), for the in-process benchmarks
 * (`stages.ts`, `core-counts.ts`) to set beside gatehouse's core.
 */
import { createHash } from 'node:crypto'
import { formatCreated } from '../examples/reference-api/routes/articles.js'

/** The baseline's statements, as `hand-written-server.ts` runs them. */
export interface HandQueries {
  token(digest: string): Promise<unknown>
  count(): Promise<number>
  page(offset: number): Promise<Record<string, unknown>[]>
  close(): Promise<void>
}

const TOKEN_USER = 'SELECT u.id, u.username, u.is_active FROM gatehouse_tokens t JOIN gatehouse_users u ON u.id = t.user_id WHERE t.key_digest = $1'
const COUNT = 'SELECT count(*) AS n FROM articles'
const PAGE =
  'SELECT a.id, a.title, u.username AS author, a.score, a.created FROM articles a JOIN gatehouse_users u ON u.id = a.author_id ORDER BY a.id LIMIT 10 OFFSET $1'

/** The three statements on the database of `url` (PostgreSQL named statements, or better-sqlite3 prepared ones). */
export async function handQueries(url: string): Promise<HandQueries> {
  if (url.startsWith('postgres')) {
    const { default: pg } = await import('pg')
    const pool = new pg.Pool({ connectionString: url, max: 10 })
    return {
      token: async (digest) => (await pool.query({ name: 'token_user', text: TOKEN_USER, values: [digest] })).rows[0],
      count: async () => Number((await pool.query({ name: 'count_articles', text: COUNT })).rows[0].n),
      page: async (offset) => (await pool.query({ name: 'articles_page', text: PAGE, values: [offset] })).rows,
      close: () => pool.end(),
    }
  }
  const { default: SQLite } = await import('better-sqlite3')
  const db = new SQLite(url.replace(/^sqlite:(\/\/)?/, ''))
  const token = db.prepare(TOKEN_USER.replace('$1', '?'))
  const count = db.prepare(COUNT)
  const page = db.prepare(PAGE.replace('$1', '?'))
  return {
    token: async (digest) => token.get(digest),
    count: async () => (count.get() as { n: number }).n,
    page: async (offset) => page.all(offset) as Record<string, unknown>[],
    close: async () => void db.close(),
  }
}

/** The baseline handler's work for the request, without Fastify: the body it sends. */
export async function handHandle(q: HandQueries, header: string, host: string, rawPage: string): Promise<string> {
  const key = header.startsWith('Token ') ? header.slice(6) : ''
  const user = (await q.token(createHash('sha256').update(key).digest('hex'))) as { is_active: number } | undefined
  if (user === undefined || !user.is_active) return '{"detail":"Invalid token."}'
  const page = Number(rawPage)
  const [count, rows] = await Promise.all([q.count(), q.page((page - 1) * 10)])
  const pages = Math.ceil(Math.max(1, count) / 10)
  const base = `http://${host}/api/articles/`
  return JSON.stringify({
    count,
    next: page < pages ? `${base}?page=${page + 1}` : null,
    previous: page === 1 ? null : page === 2 ? base : `${base}?page=${page - 1}`,
    results: rows.map((r) => ({ id: r['id'], title: r['title'], author: r['author'], score: r['score'], created: formatCreated(r['created'] as Date | string) })),
  })
}
