import { PostgresAdapter, PostgresDialect, SqliteAdapter, SqliteDialect, type DialectAdapter, type SqliteDialectConfig } from 'kysely'
import { DIRECT_DRIVER, postgresDirectDriver, type DirectDriver } from './direct-driver.js'
import type { GuardedPostgresPool } from './postgres-pool.js'

/** Kysely's PostgreSQL adapter, carrying the dialect's direct driver for prepared queries. */
class DirectPostgresAdapter extends PostgresAdapter {
  readonly [DIRECT_DRIVER]: DirectDriver
  /** The guarded pool (for `migrate`'s long statements). */
  readonly pool: GuardedPostgresPool

  constructor(pool: GuardedPostgresPool, direct: DirectDriver) {
    super()
    this.pool = pool
    this[DIRECT_DRIVER] = direct
  }
}

/** Kysely's SQLite adapter, carrying the dialect's direct driver for prepared queries. */
class DirectSqliteAdapter extends SqliteAdapter {
  readonly [DIRECT_DRIVER]: DirectDriver

  constructor(direct: DirectDriver) {
    super()
    this[DIRECT_DRIVER] = direct
  }
}

/**
 * Kysely's `PostgresDialect` over a `GuardedPostgresPool` (timeouts, store faults, named
 * statements), whose adapter also carries a direct driver: prepared queries
 * (`prepareQuery`, prepared page sources, the stores' lookups) of a Kysely instance built on
 * it run their compiled SQL on the same pool without Kysely's executor.
 */
export class GatehousePostgresDialect extends PostgresDialect {
  readonly pool: GuardedPostgresPool
  private readonly direct: DirectDriver

  constructor(pool: GuardedPostgresPool) {
    super({ pool })
    this.pool = pool
    this.direct = postgresDirectDriver(pool)
  }

  override createAdapter(): DialectAdapter {
    return new DirectPostgresAdapter(this.pool, this.direct)
  }
}

/** Kysely's `SqliteDialect` whose adapter also carries a direct driver (statements prepared once, run outside Kysely's mutex). */
export class GatehouseSqliteDialect extends SqliteDialect {
  private readonly direct: DirectDriver

  constructor(config: SqliteDialectConfig, direct: DirectDriver) {
    super(config)
    this.direct = direct
  }

  override createAdapter(): DialectAdapter {
    return new DirectSqliteAdapter(this.direct)
  }
}

/** The guarded PostgreSQL pool of a Kysely instance built on `GatehousePostgresDialect`, or `undefined`. */
export function guardedPoolOf(db: { getExecutor(): { readonly adapter: DialectAdapter } }): GuardedPostgresPool | undefined {
  const adapter = db.getExecutor().adapter
  return adapter instanceof DirectPostgresAdapter ? adapter.pool : undefined
}
