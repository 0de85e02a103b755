import {
  PostgresAdapter,
  PostgresDialect,
  PostgresDriver,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  type SqliteDialectConfig,
} from 'kysely'
import { DIRECT_DRIVER, postgresDirectDriver, type DirectDriver } from './direct-driver.js'
import type { GuardedPostgresPool } from './postgres-pool.js'

/**
 * Whether the Kysely instance built on a dialect logs its statements (its `log` option), which
 * Kysely keeps to itself: it shows only in the connections Kysely hands out, whose
 * `executeQuery` it wraps in its logging when a log is set. Unknown until Kysely has handed
 * out a connection once (the first statement through Kysely, e.g. a migration, or the first
 * prepared one, which goes through Kysely while it is unknown).
 */
class LogProbe {
  logging: boolean | undefined = undefined

  /** Reads a connection Kysely handed out: its `executeQuery` is an own property where Kysely wrapped it. */
  sawConnection(connection: DatabaseConnection): void {
    this.logging ??= Object.prototype.hasOwnProperty.call(connection, 'executeQuery')
  }
}

/**
 * The direct driver a Kysely instance's prepared statements use: `direct` while its Kysely
 * does not log, none (Kysely's own path, which logs each statement) while it does or may.
 */
function unlessLogging(direct: DirectDriver, probe: LogProbe): DirectDriver {
  return {
    dialect: direct.dialect,
    available: () => probe.logging === false && direct.available(),
    // The driver's own function: no wrapper per statement.
    rows: direct.rows,
  }
}

/** Kysely's PostgreSQL driver, telling the probe what the connections it hands back look like. */
class ProbingPostgresDriver extends PostgresDriver {
  private readonly probe: LogProbe

  constructor(pool: GuardedPostgresPool, probe: LogProbe) {
    super({ pool })
    this.probe = probe
  }

  override releaseConnection(connection: Parameters<PostgresDriver['releaseConnection']>[0]): Promise<void> {
    this.probe.sawConnection(connection)
    return super.releaseConnection(connection)
  }
}

/** Kysely's SQLite driver, telling the probe what the connection it hands back looks like. */
class ProbingSqliteDriver extends SqliteDriver {
  private readonly probe: LogProbe

  constructor(config: SqliteDialectConfig, probe: LogProbe) {
    super(config)
    this.probe = probe
  }

  // Kysely passes the connection, though SqliteDriver's signature names none.
  override releaseConnection(connection?: DatabaseConnection): Promise<void> {
    if (connection !== undefined) this.probe.sawConnection(connection)
    return super.releaseConnection()
  }
}

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
 * Pairs the driver and the adapter of one Kysely instance: its constructor creates the driver,
 * then the adapter. An adapter with no driver just before it (never so from Kysely) gets a probe
 * that never learns: its prepared statements go through Kysely, which is right if slower.
 */
class ProbePairs {
  private pending: LogProbe | undefined

  forDriver(): LogProbe {
    this.pending = new LogProbe()
    return this.pending
  }

  forAdapter(): LogProbe {
    const probe = this.pending ?? new LogProbe()
    this.pending = undefined
    return probe
  }
}

/**
 * Kysely's `PostgresDialect` over a `GuardedPostgresPool` (timeouts, store faults, named
 * statements), whose adapter also carries a direct driver: prepared queries
 * (`prepareQuery`, prepared page sources, the stores' lookups) of a Kysely instance built on
 * it run their compiled SQL on the same pool without Kysely's executor, unless that instance
 * has a `log` (then they go through Kysely, which logs them).
 */
export class GatehousePostgresDialect extends PostgresDialect {
  readonly pool: GuardedPostgresPool
  private readonly direct: DirectDriver
  private readonly probes = new ProbePairs()

  constructor(pool: GuardedPostgresPool) {
    super({ pool })
    this.pool = pool
    this.direct = postgresDirectDriver(pool)
  }

  override createDriver(): Driver {
    return new ProbingPostgresDriver(this.pool, this.probes.forDriver())
  }

  override createAdapter(): DialectAdapter {
    return new DirectPostgresAdapter(this.pool, unlessLogging(this.direct, this.probes.forAdapter()))
  }
}

/**
 * Kysely's `SqliteDialect` whose adapter also carries a direct driver (statements prepared once,
 * run outside Kysely's mutex), unless the Kysely instance built on it has a `log`.
 */
export class GatehouseSqliteDialect extends SqliteDialect {
  private readonly config: SqliteDialectConfig
  private readonly direct: DirectDriver
  private readonly probes = new ProbePairs()

  constructor(config: SqliteDialectConfig, direct: DirectDriver) {
    super(config)
    this.config = config
    this.direct = direct
  }

  override createDriver(): Driver {
    return new ProbingSqliteDriver(this.config, this.probes.forDriver())
  }

  override createAdapter(): DialectAdapter {
    return new DirectSqliteAdapter(unlessLogging(this.direct, this.probes.forAdapter()))
  }
}

/** The guarded PostgreSQL pool of a Kysely instance built on `GatehousePostgresDialect`, or `undefined`. */
export function guardedPoolOf(db: { getExecutor(): { readonly adapter: DialectAdapter } }): GuardedPostgresPool | undefined {
  const adapter = db.getExecutor().adapter
  return adapter instanceof DirectPostgresAdapter ? adapter.pool : undefined
}
