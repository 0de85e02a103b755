/**
 * One prepared statement run two ways on the same open database: on the direct driver
 * (`CompiledStatement`'s fast path) and through Kysely's own executor (`db.executeQuery`
 * with the compiled query), per run: node CPU µs, bytes allocated, promises created.
 *
 *   DATABASE_URL=postgres://… npx tsx bench/driver-paths.ts [--count 5000] [--rounds 3]
 */
import { GCProfiler, getHeapStatistics, promiseHooks } from 'node:v8'
import { sql } from 'kysely'
import { openDatabase } from '../src/kysely/database.js'
import { CompiledStatement } from '../src/kysely/prepared-query.js'
import { freshPostgres, freshSqlite } from '../test/helpers/databases.js'

const count = Number(process.argv[process.argv.indexOf('--count') + 1] || 5000)
const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1] || 3)

async function measure(fn: () => Promise<unknown>): Promise<{ cpu: number; bytes: number; promises: number }> {
  for (let i = 0; i < count / 5; i++) await fn()
  const cpu0 = process.cpuUsage()
  for (let i = 0; i < count; i++) await fn()
  const cpuUsed = process.cpuUsage(cpu0)
  const profiler = new GCProfiler()
  profiler.start()
  const h0 = getHeapStatistics().used_heap_size
  for (let i = 0; i < count; i++) await fn()
  const h1 = getHeapStatistics().used_heap_size
  let freed = 0
  for (const gc of profiler.stop()?.statistics ?? []) freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize
  let promises = 0
  const stop = promiseHooks.onInit(() => void promises++)
  for (let i = 0; i < 1000; i++) await fn()
  stop()
  return { cpu: (cpuUsed.user + cpuUsed.system) / count, bytes: (h1 - h0 + freed) / count, promises: promises / 1000 }
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
