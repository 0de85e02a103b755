import { sql, type Kysely, type RawBuilder } from 'kysely'
import { isStoreUnavailable, StoreUnavailable } from '../core/store-faults.js'
import type { ReservationHit, ReservingThrottleStore, ThrottleHit, ThrottleStore } from '../throttling/throttle-store.js'
import type { DialectName } from './dialect-name.js'
import type { Migration } from './migration-runner.js'

/** Options for `KyselyThrottleStore`. */
export interface KyselyThrottleStoreOptions {
  /** Any Kysely instance on a database migrated with `KyselyThrottleStore.migrations` (`openD1`'s, `openLibsql`'s, `openDatabase`'s…). */
  readonly db: Pick<Kysely<unknown>, 'getExecutor'>
  /** The database's engine: the `dialect` of the `Database` you opened. */
  readonly dialect: DialectName
}

const TABLE = 'gatehouse_throttles'

/** Rows stay this long (ms) after their last entry has ended, so a caller whose clock runs behind still sees them. */
const SWEEP_GRACE_MS = 60_000

/** One call in this many also deletes ended rows: by chance, since on a Worker a store often lives for one request. */
const SWEEP_ONE_IN = 1_000

/** The columns every statement reads back. */
interface Row {
  readonly hits?: unknown
  readonly failures?: unknown
  readonly leases?: unknown
  readonly allowed?: unknown
}

/**
 * Throttle histories and login-failure reservations in SQL (`gatehouse_throttles`), shared by
 * every process and isolate on the same database: D1, libSQL, SQLite and PostgreSQL (Neon's
 * driver included). Each `hit`, `reserve`, `confirm` and `cancel` is **one statement** (an
 * upsert on the key's row, whose lists are filtered and appended to in SQL): atomic on
 * SQLite and D1, which run one write at a time, and on PostgreSQL, where the upsert locks the
 * key's row and reads its latest version. No transaction spans two statements, which D1 has
 * none of.
 *
 * Timestamps come from each caller's clock, as with `RedisThrottleStore`: keep clocks in
 * sync (a Worker's clock is Cloudflare's). A key's row is deleted, by an occasional sweep,
 * a minute after its last entry has ended. A database that is down, locked past its busy
 * timeout or too slow (a D1 `SQLITE_BUSY` included) throws `StoreUnavailable` (503), as the
 * other throttle stores do; any other database error is thrown as the driver throws it.
 *
 * @example
 * const { db, dialect } = openD1(env.DB) // once: await migrate(db, KyselyThrottleStore.migrations(dialect), 'gatehouse_throttle_migrations')
 * const store = new KyselyThrottleStore({ db, dialect })
 * const throttle = new AnonRateThrottle({ store, rate: '100/hour' })
 * const loginFailures = new LoginFailureThrottle({ store, rate: '5/min' })
 */
export class KyselyThrottleStore implements ThrottleStore, ReservingThrottleStore {
  private readonly db: Pick<Kysely<unknown>, 'getExecutor'>
  private readonly postgres: boolean

  constructor(options: KyselyThrottleStoreOptions) {
    this.db = options.db
    this.postgres = options.dialect === 'postgres'
  }

  /**
   * The store's table, `gatehouse_throttles`: one row per key, its hits (and its confirmed
   * failures and live reservations) as JSON lists. Run it with its own tracking table.
   *
   * @example
   * await migrate(db, KyselyThrottleStore.migrations(dialect), 'gatehouse_throttle_migrations')
   */
  static migrations(dialect: DialectName): Record<string, Migration> {
    const list = dialect === 'postgres' ? 'jsonb' : 'text'
    return {
      '0001_throttles': {
        async up(db: Kysely<unknown>): Promise<void> {
          await db.schema
            .createTable(TABLE)
            .addColumn('throttle_key', 'text', (c) => c.primaryKey())
            .addColumn('hits', list, (c) => c.notNull().defaultTo(sql`'[]'`))
            .addColumn('failures', list, (c) => c.notNull().defaultTo(sql`'[]'`))
            .addColumn('leases', list, (c) => c.notNull().defaultTo(sql`'[]'`))
            .addColumn('allowed', 'integer', (c) => c.notNull().defaultTo(0))
            .addColumn('expires_at', 'bigint', (c) => c.notNull())
            .execute()
          await db.schema.createIndex(`${TABLE}_expires_at`).on(TABLE).column('expires_at').execute()
        },
        async down(db: Kysely<unknown>): Promise<void> {
          await db.schema.dropTable(TABLE).execute()
        },
      },
    }
  }

  async hit(key: string, now: number, windowMs: number, limit: number): Promise<ThrottleHit> {
    const cutoff = now - windowMs
    const kept = this.kept('hits', cutoff)
    const under = sql`${this.length(kept)} < ${this.num(limit)}`
    const any = sql`${this.num(limit)} > 0`
    const row = await this.upsert(
      'throttle hit',
      key,
      {
        hits: sql`case when ${any} then ${this.list([this.num(now)])} else ${this.empty()} end`,
        allowed: sql`case when ${any} then 1 else 0 end`,
      },
      {
        hits: sql`case when ${under} then ${this.append(kept, this.num(now))} else ${kept} end`,
        allowed: sql`case when ${under} then 1 else 0 end`,
      },
      Math.ceil(now + windowMs),
      now,
    )
    const hits = numbers(row.hits)
    return { allowed: Number(row.allowed) === 1, count: hits.length, oldest: hits.length === 0 ? null : Math.min(...hits) }
  }

  async reserve(key: string, id: string, now: number, windowMs: number, limit: number, leaseEnd: number): Promise<ReservationHit> {
    const failures = this.kept('failures', now)
    const leases = this.liveLeases(now)
    const leasable = sql`${this.num(leaseEnd)} > ${this.num(now)}`
    const first = sql`${this.num(limit)} > 0 and ${leasable}`
    const ok = sql`${this.length(failures)} + ${this.length(leases)} < ${this.num(limit)} and ${leasable}`
    const lease = this.pair(id, leaseEnd)
    const row = await this.upsert(
      'throttle reserve',
      key,
      {
        leases: sql`case when ${first} then ${this.list([lease])} else ${this.empty()} end`,
        allowed: sql`case when ${first} then 1 else 0 end`,
      },
      {
        failures,
        leases: sql`case when ${ok} then ${this.append(leases, lease)} else ${leases} end`,
        allowed: sql`case when ${ok} then 1 else 0 end`,
      },
      Math.ceil(leaseEnd),
      now,
    )
    const ends = numbers(row.failures)
    const live = lists(row.leases).map((entry) => Number(entry[1]))
    return {
      allowed: Number(row.allowed) === 1,
      failures: ends.length,
      pending: live.length,
      // Failures are kept as when they leave the window: the oldest happened a window earlier.
      oldest: ends.length === 0 ? null : Math.min(...ends) - windowMs,
      nextLeaseEnd: live.length === 0 ? null : Math.min(...live),
    }
  }

  async confirm(key: string, id: string, at: number, windowMs: number): Promise<void> {
    const end = this.num(at + windowMs)
    await this.upsert(
      'throttle confirm',
      key,
      { failures: this.list([end]) },
      { failures: this.append(sql.ref(`${TABLE}.failures`), end), leases: this.otherLeases(id) },
      Math.ceil(at + windowMs),
      at,
    )
  }

  async cancel(key: string, id: string): Promise<void> {
    await this.run('throttle cancel', () => sql`update ${sql.table(TABLE)} set leases = ${this.otherLeases(id)} where throttle_key = ${key}`.execute(this.db))
  }

  /** Runs one statement of `operation`; a store fault (see `isStoreUnavailable`) is rethrown as `StoreUnavailable`, anything else as it came. */
  private async run<T>(operation: string, statement: () => Promise<T>): Promise<T> {
    try {
      return await statement()
    } catch (error) {
      throw isStoreUnavailable(error) ? new StoreUnavailable(this.postgres ? 'postgres' : 'sqlite', operation, error) : error
    }
  }

  /**
   * The one statement of every step: the key's row inserted with `inserted`, or, when it
   * exists, updated with `updated` (whose expressions read the row's current lists), its
   * `expires_at` raised to `expiresAt`; answers the row as written. `operation` names the step in a `StoreUnavailable`.
   */
  private async upsert(
    operation: string,
    key: string,
    inserted: Readonly<Record<string, RawBuilder<unknown>>>,
    updated: Readonly<Record<string, RawBuilder<unknown>>>,
    expiresAt: number,
    now: number,
  ): Promise<Row> {
    const columns = Object.keys(inserted)
    const sets = Object.entries(updated).map(([column, value]) => sql`${sql.ref(column)} = ${value}`)
    const greatest = this.postgres ? sql`greatest` : sql`max`
    const result = await this.run(operation, () => sql<Row>`insert into ${sql.table(TABLE)} (throttle_key, expires_at, ${sql.join(columns.map((c) => sql.ref(c)))})
      values (${key}, ${expiresAt}, ${sql.join(Object.values(inserted))})
      on conflict (throttle_key) do update set ${sql.join(sets)}, expires_at = ${greatest}(${sql.ref(`${TABLE}.expires_at`)}, ${expiresAt})
      returning hits, failures, leases, allowed`.execute(this.db))
    if (Math.random() * SWEEP_ONE_IN < 1) await this.sweep(now)
    const row = result.rows[0]
    if (row === undefined) throw new Error(`${TABLE}: the upsert answered no row`)
    return row
  }

  /** Deletes rows whose every entry ended a while ago. Best effort: a failure leaves them for the next sweep. */
  private async sweep(now: number): Promise<void> {
    try {
      await sql`delete from ${sql.table(TABLE)} where expires_at <= ${Math.floor(now - SWEEP_GRACE_MS)}`.execute(this.db)
    } catch {
      // The step itself has succeeded; stale rows count for nothing.
    }
  }

  /** `column`'s numbers greater than `after`, as a list. */
  private kept(column: 'hits' | 'failures', after: number): RawBuilder<unknown> {
    const ref = sql.ref(`${TABLE}.${column}`)
    if (this.postgres) return sql`jsonb_path_query_array(${ref}, 'strict $[*] ? (@ > $after)', jsonb_build_object('after', ${this.num(after)}))`
    return sql`(select json_group_array(value) from json_each(${ref}) where value > ${after})`
  }

  /** Leases (`[id, end]`) that end after `now`. */
  private liveLeases(now: number): RawBuilder<unknown> {
    const ref = sql.ref(`${TABLE}.leases`)
    if (this.postgres) return sql`jsonb_path_query_array(${ref}, 'strict $[*] ? (@[1] > $now)', jsonb_build_object('now', ${this.num(now)}))`
    return sql`(select json_group_array(json(value)) from json_each(${ref}) where json_extract(value, '$[1]') > ${now})`
  }

  /** Leases other than `id`'s. */
  private otherLeases(id: string): RawBuilder<unknown> {
    const ref = sql.ref(`${TABLE}.leases`)
    if (this.postgres) return sql`jsonb_path_query_array(${ref}, 'strict $[*] ? (@[0] != $id)', jsonb_build_object('id', ${id}::text))`
    return sql`(select json_group_array(json(value)) from json_each(${ref}) where json_extract(value, '$[0]') <> ${id})`
  }

  private length(list: RawBuilder<unknown>): RawBuilder<unknown> {
    return this.postgres ? sql`jsonb_array_length(${list})` : sql`json_array_length(${list})`
  }

  private append(list: RawBuilder<unknown>, item: RawBuilder<unknown>): RawBuilder<unknown> {
    // jsonb || jsonb concatenates arrays, so the item goes in a list of its own.
    return this.postgres ? sql`${list} || jsonb_build_array(${item})` : sql`json_insert(${list}, '$[#]', ${item})`
  }

  private list(items: readonly RawBuilder<unknown>[]): RawBuilder<unknown> {
    return this.postgres ? sql`jsonb_build_array(${sql.join(items)})` : sql`json_array(${sql.join(items)})`
  }

  private empty(): RawBuilder<unknown> {
    return this.postgres ? sql`'[]'::jsonb` : sql`'[]'`
  }

  private pair(id: string, end: number): RawBuilder<unknown> {
    return this.postgres ? sql`jsonb_build_array(${id}::text, ${this.num(end)})` : sql`json_array(${id}, ${end})`
  }

  /** A number parameter PostgreSQL can type (`numeric`: exact, fractions allowed). */
  private num(value: number): RawBuilder<unknown> {
    return this.postgres ? sql`${value}::numeric` : sql`${value}`
  }
}

/** A list column as read: parsed JSON (PostgreSQL's jsonb) or JSON text (SQLite). */
function parsed(value: unknown): unknown[] {
  const list: unknown = typeof value === 'string' ? JSON.parse(value) : value
  return Array.isArray(list) ? list : []
}

function numbers(value: unknown): number[] {
  return parsed(value).map(Number)
}

function lists(value: unknown): unknown[][] {
  return parsed(value).filter((entry): entry is unknown[] => Array.isArray(entry))
}
