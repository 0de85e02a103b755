/**
 * Kysely's `log` option sees gatehouse's prepared statements (`prepareQuery`, prepared page
 * sources, the token store's join), which otherwise run on the dialect's direct driver, outside
 * Kysely: a Kysely instance with a log sends them through Kysely, one without keeps the direct
 * path. Real SQLite and PostgreSQL.
 */
import { Kysely, sql, type Generated, type LogEvent } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS, type TestDatabase } from '../../test/helpers/databases.js'
import { backendUnavailable } from '../../test/helpers/requirements.js'
import { createDialect, parseDatabaseUrl } from './database.js'
import { directDriverOf } from './direct-driver.js'
import { KyselyTokenStore } from './kysely-token-store.js'
import { KyselyUserStore } from './kysely-user-store.js'
import { authMigrations, migrate } from './migrations.js'
import { preparePageSource } from './prepared-page-source.js'
import { prepareQuery } from './prepared-query.js'
import type { AuthDatabase } from './schema.js'

interface Db extends AuthDatabase {
  notes: { id: Generated<number>; body: string }
}

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`Kysely's log sees prepared statements on ${backend.name}`, () => {
    let target: TestDatabase
    let logged: Kysely<Db>
    let quiet: Kysely<Db>
    const events: LogEvent[] = []
    let key: string

    beforeAll(async () => {
      target = await backend.create()
      const dialectName = parseDatabaseUrl(target.url).dialect
      logged = new Kysely<Db>({ dialect: await createDialect(parseDatabaseUrl(target.url)), log: (event) => void events.push(event) })
      await migrate(logged, authMigrations(dialectName))
      await sql`create table notes (id integer primary key, body text not null)`.execute(logged)
      await logged.insertInto('notes').values([{ id: 1, body: 'one' }, { id: 2, body: 'two' }, { id: 3, body: 'three' }]).execute()
      const users = new KyselyUserStore({ db: logged, scrypt: { N: 1024, r: 8, p: 1 } })
      key = (await new KyselyTokenStore({ db: logged }).getOrCreate((await users.create({ username: 'alice', password: null })).id)).key
      quiet = new Kysely<Db>({ dialect: await createDialect(parseDatabaseUrl(target.url)) })
    })
    afterAll(async () => {
      await logged?.destroy()
      await quiet?.destroy()
      await target?.drop()
    })

    /** The SQL texts `run` logged, after the log is emptied. */
    async function statementsOf(run: () => Promise<unknown>): Promise<string[]> {
      events.length = 0
      await run()
      return events.map((event) => `${event.level}: ${event.query.sql}`)
    }

    it('a prepared query: each run logged, the first run and every one after', async () => {
      const byId = prepareQuery<{ id: number }, { body: string }>(logged, (p) => logged.selectFrom('notes').select('body').where('id', '=', p.id))
      for (const id of [1, 2, 3]) {
        expect(await statementsOf(async () => expect(await byId.executeTakeFirst({ id })).toEqual({ body: ['one', 'two', 'three'][id - 1] }))).toEqual([`query: ${byId.sql}`])
      }
    })

    it("the token store's join, once per authentication, as the statement it is", async () => {
      const tokens = new KyselyTokenStore({ db: logged, joinUsers: new KyselyUserStore({ db: logged }).userTable })
      for (let i = 0; i < 2; i++) {
        const texts = await statementsOf(async () => expect((await tokens.findWithUser?.(key))?.user.username).toBe('alice'))
        expect(texts).toHaveLength(1)
        expect(texts[0]).toMatch(/^query: select .* from "gatehouse_tokens" inner join "gatehouse_users"/)
      }
    })

    it("a prepared page source's count and page", async () => {
      const notes = preparePageSource({ db: logged, dialect: parseDatabaseUrl(target.url).dialect, columns: { id: { ref: 'notes.id', kind: 'integer' } }, orderBy: ['id'], query: () => logged.selectFrom('notes').select(['notes.id as id', 'notes.body as body']) })
      const texts = await statementsOf(async () => {
        const source = notes()
        expect(await source.count()).toBe(3)
        expect(await source.slice(1, 2)).toEqual([{ id: 2, body: 'two' }, { id: 3, body: 'three' }])
      })
      expect(texts).toHaveLength(2)
      expect(texts[0]).toMatch(/^query: select count\(\*\)/)
      expect(texts[1]).toMatch(/^query: select .* from "notes" order by/)
    })

    it('a failing prepared statement is logged as an error', async () => {
      const loose = logged as unknown as Kysely<Record<string, { id: number }>>
      const missing = prepareQuery<{ id: number }, { id: number }>(loose, (p) => loose.selectFrom('no_such_table').select('id').where('id', '=', p.id))
      const texts = await statementsOf(() => missing.execute({ id: 1 }).then(() => expect.unreachable(), () => null))
      expect(texts).toEqual([`error: ${missing.sql}`])
    })

    it('a Kysely instance without a log keeps the direct path (nothing reaches Kysely after its first statement)', async () => {
      const direct = directDriverOf(quiet)
      expect(direct).toBeDefined()
      const byId = prepareQuery<{ id: number }, { body: string }>(quiet, (p) => quiet.selectFrom('notes').select('body').where('id', '=', p.id))
      // The first statement goes through Kysely: until then the dialect cannot tell whether the instance logs.
      expect(await byId.executeTakeFirst({ id: 1 })).toEqual({ body: 'one' })
      expect(direct?.available()).toBe(true)
      expect(await direct?.rows(byId.sql, [2])).toEqual([{ body: 'two' }])
      // The logging instance's statements never take it.
      expect(directDriverOf(logged)?.available()).toBe(false)
    })
  })
}
