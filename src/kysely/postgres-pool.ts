import { createHash } from 'node:crypto'
import type { PostgresPool, PostgresPoolClient } from 'kysely'
import { isStoreUnavailable, StoreUnavailable } from '../core/store-faults.js'
import { scopedStatementTimeout, serverTimeoutFor } from './statement-timeout.js'

/** What node-postgres answers a statement with. */
export interface PgResult {
  readonly rows: unknown[]
  readonly command?: string
  readonly rowCount?: number | null
}

/** A node-style callback: an error, or the value. */
export type Done<T> = (error: unknown, value?: T) => void

interface PgClient {
  once(event: 'end', listener: () => void): unknown
  /** With a callback, node-postgres makes no promise (and no `.catch` wrapper) per statement. */
  query(config: PgQueryConfig, callback: (error: Error | null, result: PgResult) => void): void
  query(cursor: unknown): unknown
  release(error?: Error | boolean): void
  end(): Promise<void>
}

/** A node-postgres query config: `name` makes it a named (prepared) statement. */
interface PgQueryConfig {
  readonly text: string
  readonly values: readonly unknown[]
  readonly name?: string
}

interface PgPool {
  /** With a callback, pg-pool makes no promise per checkout. */
  connect(callback: (error: Error | undefined, client: unknown) => void): void
  end(): Promise<void>
  /**
   * node-postgres' pool settings: Kysely 0.29 reads them (`PostgresPool.options`), and new
   * connections are made from them (the timeouts are dropped when a pooler refuses them).
   */
  readonly options?: object
}

/** The startup parameters gatehouse sends (timeouts), which PgBouncer refuses unless told to ignore them. */
const TIMEOUT_STARTUP_PARAMETERS = ['statement_timeout', 'idle_in_transaction_session_timeout'] as const

/** PgBouncer's refusal of a timeout startup parameter (`unsupported startup parameter: statement_timeout`). */
function refusedTimeoutParameter(error: unknown): boolean {
  return error instanceof Error && /unsupported startup parameter: (statement_timeout|idle_in_transaction_session_timeout)\b/i.test(error.message)
}

/** How `guardedPostgresPool` runs statements. */
export interface GuardedPoolSettings {
  /** Client-side wait for one statement (ms). */
  readonly statementTimeoutMs: number
  /**
   * The server's `statement_timeout` the pool's connections start with (ms; sent as a startup
   * parameter), or `null` when the connections start with none set by gatehouse (PgBouncer).
   */
  readonly serverStatementTimeoutMs: number | null
  /** How many distinct SQL texts run as named prepared statements (0: none). */
  readonly preparedStatements: number
  /**
   * A transaction pooler (PgBouncer) is between: statements run unnamed and the server's
   * timeout is never changed with `SET` (it would stay on a server connection other clients get).
   */
  readonly pgbouncer: boolean
  /** Where the one warning of a fallback to unnamed statements goes. @default console.warn */
  readonly warn?: (message: string) => void
}

/** PostgreSQL's SQLSTATEs for a named statement the server does not have as node-postgres believes. */
const DUPLICATE_PREPARED_STATEMENT = '42P05'
const INVALID_SQL_STATEMENT_NAME = '26000'

/** The name a SQL text is prepared under: a digest, so one name never stands for two texts. */
export function statementName(text: string): string {
  return `gh_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`
}

/** What a statement that outlived its client-side wait fails with (pg's own `query_timeout` message: a timeout store fault). */
function statementTimedOut(): Error {
  return new Error('Query read timeout')
}

/** What a pool acquisition failure was: waiting for a connection, or making one. */
function acquisitionStep(error: unknown): string {
  const message = error instanceof Error ? error.message : ''
  return message.startsWith('timeout exceeded when trying to connect') ? 'pool acquisition' : 'connect'
}

/**
 * The ticks of the one watchdog timer of a pool: a statement records the tick it started at
 * (no clock read, no timer of its own), and the watchdog ends the connection of any statement
 * past its wait. A statement is so given up between its wait and its wait plus one tick.
 */
const TICK_DIVISOR = 8
const MAX_TICK_MS = 250

/**
 * A node-postgres pool for Kysely's `PostgresDialect` that runs each statement with the
 * least work that still bounds its wait and its faults:
 * - timeouts are set once per connection: the server's `statement_timeout` and
 *   `idle_in_transaction_session_timeout` are startup parameters of the pool's connections,
 *   read back before a connection's first statement (a pooler that dropped them unseen turns
 *   the pool to `pgbouncer` mode before any `SET` could reach its other clients);
 *   the client side has no timer per statement: one watchdog per pool (a fraction of the wait,
 *   unreferenced) ends the connection of a statement that outlived its wait (a frozen or cut-off
 *   server), which fails the statement as a timeout store fault;
 * - the first `preparedStatements` distinct texts run as named statements (parsed and planned
 *   once per connection); under PgBouncer (`pgbouncer`) all run unnamed, and a pool that meets
 *   PgBouncer's `prepared statement … already exists` / `does not exist` (42P05 / 26000) switches
 *   to unnamed statements with one warning, running the failed statement again unnamed;
 * - store faults are thrown as `StoreUnavailable` naming the step (`pool acquisition`,
 *   `connect`, `query`); a connection whose statement failed with one (other than the server's
 *   own cancel, 57014) runs nothing more and is discarded on release;
 * - `withStatementTimeout` raises both sides for its statements (the server's with `SET`, sent
 *   only when the connection's value differs); it is looked up only once it has been used.
 */
export class GuardedPostgresPool implements PostgresPool {
  /** Fixed but for `pgbouncer` and `serverStatementTimeoutMs`, which change once when a pooler is detected. */
  settings: GuardedPoolSettings
  private readonly pool: PgPool
  /** Kysely keys its connections by client object: one guarded client per pg client. */
  private readonly clients = new WeakMap<object, GuardedClient>()
  /** Every guarded client made (at most the pool's size alive; ended ones drop out on the next tick). */
  private live: GuardedClient[] = []
  private readonly names = new Map<string, string>()
  /** Whether statements run unnamed (PgBouncer named or detected). */
  unnamed: boolean
  private warned = false
  private startupParametersDropped = false
  /**
   * The watchdog's tick count, and its timer (started with the first connection). It starts at 1:
   * a statement's start tick of 0 means "none running", so one sent before the first tick must
   * not read as unwatched.
   */
  tick = 1
  readonly tickMs: number
  private watchdog: ReturnType<typeof setInterval> | null = null
  private ending: Promise<void> | null = null

  /** node-postgres' pool settings, which Kysely 0.29 reads (to cancel a statement from another connection). */
  readonly options: object

  constructor(pool: PgPool, settings: GuardedPoolSettings) {
    this.pool = pool
    this.options = pool.options ?? {}
    this.settings = settings
    this.unnamed = settings.pgbouncer || settings.preparedStatements <= 0
    this.tickMs = Math.max(1, Math.min(MAX_TICK_MS, Math.floor(settings.statementTimeoutMs / TICK_DIVISOR)))
  }

  /** The guarded client of a checkout (Kysely's `PostgresPool.connect`). */
  connect(): Promise<PostgresPoolClient> {
    return this.acquire()
  }

  /** A checked-out guarded client; release it with `release()`. */
  acquire(): Promise<GuardedClient> {
    return new Promise((resolve, reject) => this.checkout((error, guarded) => (guarded === undefined ? reject(error as Error) : resolve(guarded))))
  }

  /**
   * Checks a client out and hands it to `done` (release it with `release()`): a callback, so
   * the direct driver's statements make no promise per checkout.
   */
  checkout(done: Done<GuardedClient>, retry = true): void {
    this.pool.connect((error, client) => {
      if (error !== undefined && error !== null) {
        // PgBouncer refused the timeouts: connect again, without them.
        if (retry && refusedTimeoutParameter(error) && this.dropTimeoutStartupParameters()) return this.checkout(done, false)
        done(isStoreUnavailable(error) ? new StoreUnavailable('postgres', acquisitionStep(error), error) : error)
        return
      }
      done(undefined, this.guardedOf(client as PgClient))
    })
  }

  private guardedOf(client: PgClient): GuardedClient {
    let guarded = this.clients.get(client)
    if (guarded === undefined) {
      guarded = new GuardedClient(this, client)
      this.clients.set(client, guarded)
      this.live.push(guarded)
      this.watchdog ??= this.startWatchdog()
    }
    return guarded
  }

  /** Ends the pool; calling it again (Kysely's `destroy()` after `Database.close()`) waits for the same end. */
  end(): Promise<void> {
    if (this.ending === null) {
      if (this.watchdog !== null) clearInterval(this.watchdog)
      this.watchdog = null
      this.ending = this.pool.end()
    }
    return this.ending
  }

  /** The statement name of `text`, or `undefined` to run it unnamed. */
  nameOf(text: string): string | undefined {
    if (this.unnamed) return undefined
    let name = this.names.get(text)
    if (name === undefined && this.names.size < this.settings.preparedStatements) {
      name = statementName(text)
      this.names.set(text, name)
    }
    return name
  }

  /**
   * A new connection's server has a `statement_timeout` other than the one sent at connection
   * start: a pooler (PgBouncer with `ignore_startup_parameters`) dropped it unseen, and a `SET`
   * would stay on a server connection other clients get. From now on the pool runs as under
   * `pgbouncer`.
   */
  timeoutNotApplied(found: string, sent: number): void {
    this.poolerDetected(`the server's statement_timeout is ${found}, not the ${sent} sent at connection start`)
  }

  /** A named statement failed because a transaction pooler is between: from now on every statement runs unnamed. */
  fallBackToUnnamed(code: string): void {
    this.poolerDetected(`PostgreSQL answered a named prepared statement with ${code} (${code === DUPLICATE_PREPARED_STATEMENT ? 'already exists' : 'does not exist'})`)
  }

  /**
   * PgBouncer refused the timeouts sent as startup parameters (as it does unless its
   * `ignore_startup_parameters` lists them): new connections start without them, and the pool
   * runs as under `pgbouncer`. False when the pool never sent them (no retry can help).
   */
  private dropTimeoutStartupParameters(): boolean {
    const options = this.pool.options as Record<string, unknown> | undefined
    if (options === undefined) return false
    // Concurrent connects all meet the refusal: the first drops the parameters, all retry.
    if (!TIMEOUT_STARTUP_PARAMETERS.some((name) => options[name] !== undefined)) return this.startupParametersDropped
    for (const name of TIMEOUT_STARTUP_PARAMETERS) delete options[name]
    this.startupParametersDropped = true
    this.poolerDetected('the server refused the statement_timeout startup parameter')
    return true
  }

  /**
   * A transaction pooler is between, told by the server's answers: from now on the pool runs as
   * under `pgbouncer`, with one warning naming that setting.
   */
  private poolerDetected(reason: string): void {
    this.unnamed = true
    this.settings = { ...this.settings, pgbouncer: true, serverStatementTimeoutMs: null }
    if (this.warned) return
    this.warned = true
    const warn = this.settings.warn ?? ((message: string) => console.warn(message))
    warn(
      `gatehouse: ${reason}: a transaction pooler such as PgBouncer is between; statements now run unnamed. Open the database with ` +
        'pgbouncer: true (or ?pgbouncer=true on DATABASE_URL) to run them unnamed from the start.',
    )
  }

  /**
   * A pool over the same connections whose statements may each wait `ms` on the client side,
   * for work that runs long on purpose (migrations). They run unnamed and never `SET` the
   * server's timeout: a transaction raises its own with `SET LOCAL`, which ends with it even
   * behind a transaction pooler that dropped the startup parameters unseen (a session `SET`
   * would stay on a server connection other clients get). Ending it ends nothing: the
   * connections belong to this pool.
   */
  withStatementTimeout(ms: number): PostgresPool {
    const views = new WeakMap<GuardedClient, PostgresPoolClient>()
    return {
      connect: async (): Promise<PostgresPoolClient> => {
        const guarded = await this.acquire()
        let view = views.get(guarded)
        if (view === undefined) {
          view = {
            query: ((sqlOrCursor: unknown, parameters?: readonly unknown[]) =>
              typeof sqlOrCursor === 'string' ? guarded.runAsIs(sqlOrCursor, parameters ?? [], ms) : guarded.query(sqlOrCursor as never)) as PostgresPoolClient['query'],
            release: () => guarded.release(),
          }
          views.set(guarded, view)
        }
        return view
      },
      end: async () => {},
      options: this.options,
    }
  }

  private startWatchdog(): ReturnType<typeof setInterval> {
    const timer = setInterval(() => {
      const tick = ++this.tick
      let ended = false
      for (const guarded of this.live) {
        if (guarded.ended) ended = true
        else if (guarded.startTick !== 0 && tick - guarded.startTick > guarded.limitTicks) guarded.timedOut()
      }
      if (ended) this.live = this.live.filter((g) => !g.ended)
    }, this.tickMs)
    // The watchdog alone never keeps the process alive.
    timer.unref()
    return timer
  }
}

/** One pg client of a `GuardedPostgresPool`: what Kysely (and the direct driver) run statements on. */
export class GuardedClient implements PostgresPoolClient {
  private readonly owner: GuardedPostgresPool
  private readonly client: PgClient
  /** The server's statement_timeout on this connection (-1: unknown, a SET failed mid-way). */
  private serverTimeout: number
  /** Why the connection is unfit to reuse, or `null`. */
  private broken: Error | null = null
  /**
   * Whether the server's `statement_timeout` was read back and found to be the one sent at
   * connection start (checked before the connection's first statement, so before any `SET`).
   */
  private verified = false
  /** The watchdog tick the running statement started at (0: none running), and its wait in ticks. */
  startTick = 0
  limitTicks = 0
  /** The pg client ended (discarded by the pool). */
  ended = false

  constructor(owner: GuardedPostgresPool, client: PgClient) {
    this.owner = owner
    this.client = client
    this.serverTimeout = owner.settings.serverStatementTimeoutMs ?? -1
    // pg-pool ends idle clients too: the watchdog then forgets this one.
    client.once('end', () => {
      this.ended = true
    })
  }

  /** Kysely's `PostgresPoolClient.query`: a text with its parameters, or a cursor (a stream), which the client drives itself. */
  readonly query: PostgresPoolClient['query'] = ((sqlOrCursor: unknown, parameters?: readonly unknown[]) =>
    typeof sqlOrCursor === 'string' ? this.run(sqlOrCursor, parameters ?? [], 0) : this.client.query(sqlOrCursor)) as PostgresPoolClient['query']

  /**
   * Runs `text` with `values` (named when the pool names it), waiting at most `waitMs` on the
   * client side (0: `withStatementTimeout`'s where it is used, else the pool's).
   */
  run(text: string, values: readonly unknown[], waitMs: number): Promise<PgResult> {
    const ms = waitMs !== 0 ? waitMs : (scopedStatementTimeout() ?? 0)
    return new Promise((resolve, reject) => this.exec(text, values, ms, (error, result) => (error == null ? resolve(result as PgResult) : reject(error as Error))))
  }

  /**
   * `run` with a callback, the path of every statement (the direct driver's and Kysely's):
   * callbacks down to node-postgres make no promise per step. `waitMs` 0 is the pool's wait.
   * `done` is called once, and must not throw (it runs in node-postgres' socket handler).
   */
  exec(text: string, values: readonly unknown[], waitMs: number, done: Done<PgResult>): void {
    // A connection that failed is not asked again (Kysely's ROLLBACK after a timed-out statement
    // would wait behind it for another timeout): it is discarded on release.
    if (this.broken !== null) {
      done(new StoreUnavailable('postgres', 'query', this.broken))
      return
    }
    const settings = this.owner.settings
    if (!this.verified && settings.serverStatementTimeoutMs !== null) {
      this.verifyServerTimeout(settings.serverStatementTimeoutMs, (error) => (error == null ? this.exec(text, values, waitMs, done) : done(error)))
      return
    }
    const clientMs = waitMs !== 0 ? waitMs : settings.statementTimeoutMs
    // The server's timeout this statement needs: raised with the client's wait (never under
    // PgBouncer, where a SET stays on a server connection other clients get), else the pool's.
    const wanted =
      clientMs !== settings.statementTimeoutMs
        ? settings.pgbouncer
          ? this.serverTimeout
          : serverTimeoutFor(clientMs)
        : (settings.serverStatementTimeoutMs ?? this.serverTimeout)
    if (wanted === this.serverTimeout) {
      this.send(this.configOf(text, values), clientMs, done)
      return
    }
    // Unknown until the SET succeeds (a failed SET inside a transaction is rolled back).
    this.serverTimeout = -1
    this.send({ text: `SET statement_timeout = ${wanted}`, values: [] }, Math.min(clientMs, settings.statementTimeoutMs), (error) => {
      if (error != null) return done(error)
      this.serverTimeout = wanted
      this.send(this.configOf(text, values), clientMs, done)
    })
  }

  /**
   * Reads the server's `statement_timeout` back once per connection. A transaction pooler that
   * drops startup parameters unseen (PgBouncer's `ignore_startup_parameters`) leaves the
   * server's own value: the pool then never `SET`s it (such a `SET` reached other clients), as
   * under `pgbouncer`. One round trip per new connection, none per statement.
   */
  private verifyServerTimeout(sent: number, done: Done<void>): void {
    const check = { text: "select setting from pg_settings where name = 'statement_timeout'", values: [] }
    this.send(check, this.owner.settings.statementTimeoutMs, (error, result) => {
      if (error != null) return done(error)
      this.verified = true
      const found = String((result?.rows[0] as { setting?: unknown } | undefined)?.setting)
      if (found !== String(sent)) {
        this.serverTimeout = -1
        this.owner.timeoutNotApplied(found, sent)
      }
      done(undefined)
    })
  }

  /** `text` unnamed, waiting `waitMs` on the client side, with the server's timeout as the connection has it. */
  runAsIs(text: string, values: readonly unknown[], waitMs: number): Promise<PgResult> {
    return new Promise((resolve, reject) => {
      const done: Done<PgResult> = (error, result) => (error == null ? resolve(result as PgResult) : reject(error as Error))
      if (this.broken !== null) done(new StoreUnavailable('postgres', 'query', this.broken))
      else this.send({ text, values }, waitMs, done)
    })
  }

  private configOf(text: string, values: readonly unknown[]): PgQueryConfig {
    const name = this.owner.nameOf(text)
    return name === undefined ? { text, values } : { name, text, values }
  }

  /** One statement on the connection, watched by the pool's watchdog; store faults reach `done` as `StoreUnavailable`. */
  private send(config: PgQueryConfig, clientMs: number, done: Done<PgResult>): void {
    this.limitTicks = Math.ceil(clientMs / this.owner.tickMs)
    this.startTick = this.owner.tick
    try {
      this.client.query(config, (error, result) => {
        this.startTick = 0
        if (error === null || error === undefined) return done(undefined, result)
        const code = (error as { code?: unknown }).code
        if (config.name !== undefined && (code === DUPLICATE_PREPARED_STATEMENT || code === INVALID_SQL_STATEMENT_NAME)) {
          // PgBouncer gave this statement a server connection that has (or lacks) the name:
          // nothing ran. Unnamed from now on, this one included.
          this.owner.fallBackToUnnamed(code)
          return this.send({ text: config.text, values: config.values }, clientMs, done)
        }
        this.fail(error, done)
      })
    } catch (error) {
      this.startTick = 0
      this.fail(error, done)
    }
  }

  /** Tells `done` of a failed statement: a store fault (but the server's own cancel, 57014) marks the connection unfit. */
  private fail(error: unknown, done: Done<PgResult>): void {
    if (!isStoreUnavailable(error)) return done(error)
    // The server cancelled the statement itself (57014): it answered, the connection is sound.
    if (this.broken === null && (error as { code?: unknown }).code !== '57014') this.broken = error instanceof Error ? error : new Error(String(error))
    done(new StoreUnavailable('postgres', 'query', this.broken ?? error))
  }

  /** The watchdog found the running statement past its wait: end the connection, which fails the statement. */
  timedOut(): void {
    if (this.broken !== null) return
    this.broken = statementTimedOut()
    this.startTick = 0
    // With a statement running, pg destroys the socket at once (no Terminate to wait behind it).
    this.client.end().catch(() => {})
    this.ended = true
  }

  release(): void {
    if (this.broken === null) return this.client.release()
    // pg-pool ends a client released with an error instead of keeping it.
    const reason = this.broken
    this.ended = true
    this.client.release(reason)
  }
}
