/**
 * The peer of `bench/side-by-side.ts`: what a user would write instead of gatehouse for the
 * reference API's `GET /api/articles/?page=N` with token authentication, written plainly:
 * Fastify, @fastify/auth with a `verifyToken` decorator, and Kysely building each query per
 * request (no compiled statements, no driver tricks). Same answer byte for byte as the
 * reference API and the hand-written baseline.
 *
 *   DATABASE_URL=… npx tsx bench/plain-stack-server.ts --port 0
 */
import { createHash } from 'node:crypto'
import fastifyAuth from '@fastify/auth'
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify'
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely'

interface Db {
  gatehouse_users: { id: number; username: string; is_active: number | boolean }
  gatehouse_tokens: { key_digest: string; user_id: number }
  articles: { id: number; title: string; author_id: number; score: number; created: Date | string }
}

const PAGE_SIZE = 10

async function openKysely(url: string): Promise<Kysely<Db>> {
  if (url.startsWith('postgres')) {
    const { default: pg } = await import('pg')
    return new Kysely<Db>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 10 }) }) })
  }
  const { default: SQLite } = await import('better-sqlite3')
  const database = new SQLite(url.replace(/^sqlite:(\/\/)?/, ''))
  database.pragma('journal_mode = WAL')
  return new Kysely<Db>({ dialect: new SqliteDialect({ database }) })
}

/** DRF's DateTimeField output (the reference API's `formatCreated`). */
function formatCreated(value: Date | string): string {
  const date = value instanceof Date ? value : new Date(value)
  const iso = date.toISOString()
  return date.getUTCMilliseconds() === 0 ? `${iso.slice(0, 19)}Z` : `${iso.slice(0, 23)}000Z`
}

class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly detail: string,
  ) {
    super(detail)
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    verifyToken(request: FastifyRequest, reply: FastifyReply): Promise<void>
  }
  interface FastifyRequest {
    account: { id: number; username: string } | null
  }
}

async function main(): Promise<void> {
  const portIndex = process.argv.indexOf('--port')
  const port = portIndex === -1 ? 8000 : Number(process.argv[portIndex + 1])
  const db = await openKysely(process.env['DATABASE_URL'] ?? 'sqlite:gatehouse.sqlite3')
  const app = Fastify()
  app.decorateRequest('account', null)
  app.decorate('verifyToken', async (request: FastifyRequest) => {
    const header = request.headers.authorization ?? ''
    if (!header.startsWith('Token ')) throw new HttpError(401, 'Authentication credentials were not provided.')
    const digest = createHash('sha256').update(header.slice(6)).digest('hex')
    const user = await db
      .selectFrom('gatehouse_tokens as t')
      .innerJoin('gatehouse_users as u', 'u.id', 't.user_id')
      .select(['u.id', 'u.username', 'u.is_active'])
      .where('t.key_digest', '=', digest)
      .executeTakeFirst()
    if (user === undefined || !user.is_active) throw new HttpError(401, 'Invalid token.')
    request.account = { id: user.id, username: user.username }
  })
  await app.register(fastifyAuth)
  app.setErrorHandler((error, _request, reply) => {
    const status = error instanceof HttpError ? error.statusCode : 500
    void reply.code(status).header('content-type', 'application/json').send(JSON.stringify({ detail: error instanceof HttpError ? error.detail : 'Server error.' }))
  })
  app.get('/api/articles/', { preHandler: app.auth([app.verifyToken]) }, async (request, reply) => {
    const raw = (request.query as Record<string, string | undefined>)['page']
    const page = raw === undefined ? 1 : Number(raw)
    const [count, rows] = await Promise.all([
      db
        .selectFrom('articles')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .executeTakeFirstOrThrow()
        .then((r) => Number(r.n)),
      db
        .selectFrom('articles as a')
        .innerJoin('gatehouse_users as u', 'u.id', 'a.author_id')
        .select(['a.id', 'a.title', 'u.username as author', 'a.score', 'a.created'])
        .orderBy('a.id')
        .limit(PAGE_SIZE)
        .offset((page - 1) * PAGE_SIZE)
        .execute(),
    ])
    const pages = Math.ceil(Math.max(1, count) / PAGE_SIZE)
    if (!Number.isInteger(page) || page < 1 || page > pages) throw new HttpError(404, 'Invalid page.')
    const base = `http://${request.headers.host ?? 'localhost'}/api/articles/`
    const body = {
      count,
      next: page < pages ? `${base}?page=${page + 1}` : null,
      previous: page === 1 ? null : page === 2 ? base : `${base}?page=${page - 1}`,
      results: rows.map((r) => ({ id: r.id, title: r.title, author: r.author, score: r.score, created: formatCreated(r.created) })),
    }
    return reply.header('content-type', 'application/json').header('vary', 'Accept, Authorization').send(JSON.stringify(body))
  })
  const address = await app.listen({ port, host: '127.0.0.1' })
  console.log(`plain stack (Fastify + @fastify/auth + Kysely) listening on ${address}`)
  const stop = (): void => {
    void app.close().then(() => db.destroy()).then(() => process.exit(0))
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}

await main()
