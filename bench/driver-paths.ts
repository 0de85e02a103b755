/**
 * One prepared statement run two ways on the same open database: on the direct driver
 * (`CompiledStatement`'s fast path) and through Kysely's own executor (`db.executeQuery`
 * with the compiled query), per run: node CPU µs, bytes allocated, promises created.
 *
 *   DATABASE_URL=postgres://… npx tsx bench/driver-paths.ts [--count 5000] [--rounds 3]
 */
import { sql } from 'kysely'
import { openDatabase } from '../src/kysely/database.js'
import { CompiledStatement } from '../src/kysely/prepared-query.js'
import { freshPostgres, freshSqlite } from '../test/helpers/databases.js'
import { bytesPerCall, cpuPerCall, promisesPerCall } from './per-call.js'

const count = Number(process.argv[process.argv.indexOf('--count') + 1] || 5000)
const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1] || 3)

async function measure(fn: () => Promise<unknown>): Promise<{ cpu: number; bytes: number; promises: number }> {
  for (let i = 0; i < count / 5; i++) await fn()
  return { cpu: await cpuPerCall(count, fn), bytes: await bytesPerCall(count, fn), promises: await promisesPerCall(1000, fn) }
}

for (const kind of ['sqlite', 'postgres'] as const) {
  const target = kind === 'sqlite' ? freshSqlite() : await freshPostgres()
  const database = await openDatabase<Record<string, never>>(target.url)
  try {
    await sql`create table t (id integer primary key, name text)`.execute(database.db)
    await sql`insert into t (id, name) values (1, 'a'), (2, 'b')`.execute(database.db)
    const compiled = sql<{ id: number; name: string }>`select id, name from t where id = ${1}`.compile(database.db)
    const statement = new CompiledStatement(database.db, compiled)
    const direct = (): Promise<unknown> => statement.execute({})
    const kysely = (): Promise<unknown> => database.db.executeQuery(compiled)
    for (let r = 0; r < rounds; r++) {
      for (const [name, fn] of [['direct', direct], ['kysely executeQuery', kysely]] as const) {
        const m = await measure(fn)
        console.log(`${kind}\t${name}\tcpu ${m.cpu.toFixed(1)} µs\tbytes ${m.bytes.toFixed(0)}\tpromises ${m.promises.toFixed(1)}`)
      }
    }
  } finally {
    await database.close()
    await target.drop()
  }
}
