/**
 * The `gatehouse` command line, for a user's own database: it touches only the library's
 * tables (users, tokens, sessions) and its own migration table, and never seeds anything.
 * Django's `migrate`, `createsuperuser`, `changepassword`, `drf_create_token` and
 * `clearsessions`, in one command. Commands that change a user's credentials tell running
 * servers' token caches through Redis pub/sub when `REDIS_URL` (or `--redis`) is set.
 */
import { createInterface } from 'node:readline'
import { Command, CommanderError, Option } from 'commander'
import { existsSync } from 'node:fs'
import { openDatabase, parseDatabaseUrl, type Database } from '../kysely/database.js'
import { formatImportReport, importDjango, readDjangoDatabase, type ImportDjangoReport } from './import-django.js'
import type { Kysely } from 'kysely'
import { KyselySessionStore } from '../kysely/kysely-session-store.js'
import { KyselyJwtBlacklistStore, type JwtBlacklistDatabase } from '../kysely/kysely-jwt-blacklist-store.js'
import { jwtBlacklistMigrations } from '../kysely/jwt-blacklist-migrations.js'
import { KyselyTokenStore } from '../kysely/kysely-token-store.js'
import { KyselyUserStore } from '../kysely/kysely-user-store.js'
import { authMigrations, migrate } from '../kysely/migrations.js'
import type { AuthDatabase } from '../kysely/schema.js'
import type { InvalidationBus } from '../stores/invalidation-bus.js'
import { addNamedTokenCommands } from './named-token-commands.js'
import { invalidationChannel } from '../redis/invalidation-channel.js'
import { boundHook, CliConfigError, loadCliConfig } from './cli-config.js'
import { UserCreatedHookError } from '../stores/user-created-hook.js'

/** Where the command line reads and writes; the process's own streams by default. */
export interface CliIo {
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean }
  readonly stdout: NodeJS.WritableStream
  readonly stderr: NodeJS.WritableStream
  readonly env: NodeJS.ProcessEnv
}

/** An expected failure: printed as `gatehouse: <message>` on stderr, exit code 1. */
class CliError extends Error {}

interface DatabaseOption {
  readonly database?: string
}

interface ConfigOption {
  readonly config?: string
}

interface PasswordOptions {
  readonly passwordStdin?: boolean
}

interface InvalidationOptions {
  readonly redis?: string
  readonly channel?: string
}

/** An environment value, `undefined` when unset or empty. */
function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value
}

function databaseUrl(options: DatabaseOption, io: CliIo): string {
  const url = options.database ?? io.env['DATABASE_URL']
  if (url === undefined || url === '') {
    throw new CliError('no database: pass --database <url> or set DATABASE_URL (sqlite:<path>, file:<path> or postgres://…)')
  }
  return url
}

/** A command is not a request: bulk commands (import-django, migrate-tokens) get a minute per statement. */
const CLI_TIMEOUTS = { connectTimeoutMs: 10_000, statementTimeoutMs: 60_000 } as const

/** Opens the database and applies the library's migrations (its own table), then runs `fn`. */
async function withDatabase<T>(options: DatabaseOption, io: CliIo, fn: (database: Database<AuthDatabase>) => Promise<T>): Promise<T> {
  const database = await openDatabase<AuthDatabase>(databaseUrl(options, io), CLI_TIMEOUTS)
  try {
    await migrate(database.db, authMigrations(database.dialect))
    return await fn(database)
  } finally {
    await database.close()
  }
}

/**
 * The database opened for reading only (`readOnly`: nothing is created, migrated or
 * written), or `null` when it is a SQLite file that does not exist.
 */
async function openReadOnly(options: DatabaseOption, io: CliIo): Promise<Database<AuthDatabase> | null> {
  const url = databaseUrl(options, io)
  const target = parseDatabaseUrl(url)
  if (target.dialect === 'sqlite' && (target.path === ':memory:' || !existsSync(target.path))) return null
  return openDatabase<AuthDatabase>(url, { ...CLI_TIMEOUTS, readOnly: true })
}

/** Which of `tables` the database lacks. */
async function missingTables(database: Database<AuthDatabase>, tables: readonly string[]): Promise<string[]> {
  const present = new Set((await database.db.introspection.getTables()).map((t) => t.name))
  return tables.filter((t) => !present.has(t))
}

/**
 * For read-only commands: runs `fn` on the database opened read-only, without migrating it;
 * a missing SQLite file or missing gatehouse tables are an error, never created.
 */
async function withReadOnlyDatabase<T>(
  options: DatabaseOption,
  io: CliIo,
  tables: readonly string[],
  fn: (database: Database<AuthDatabase>) => Promise<T>,
): Promise<T> {
  const database = await openReadOnly(options, io)
  if (database === null) throw new CliError(`no database at ${databaseUrl(options, io)}: this command only reads, and creates nothing`)
  try {
    const missing = await missingTables(database, tables)
    if (missing.length > 0) throw new CliError(`gatehouse's tables are not in this database (no ${missing.join(', ')}): run gatehouse migrate first`)
    return await fn(database)
  } finally {
    await database.close()
  }
}

/**
 * A bus for when no Redis is named: it tells no server, and after the command warns once
 * if anything was published (a credential actually changed), since running servers' token
 * caches then keep the old answer until their TTL ends.
 */
class UntoldServers implements InvalidationBus {
  changed = false
  async publish(): Promise<void> {
    this.changed = true
  }
  subscribe(): () => void {
    return () => undefined
  }
}

/**
 * Runs `fn` with a bus that tells running servers (through Redis pub/sub) about a change,
 * when `--redis` or `REDIS_URL` names a Redis, on the channel the servers derive from the
 * same prefix (`--channel`, else `invalidationChannel(GATEHOUSE_REDIS_PREFIX)`). The Redis
 * driver is loaded only then (ioredis is an optional dependency). A change the servers
 * could not be told of (no Redis named, or Redis unreachable) is still made, with a
 * warning that their caches catch up within their TTL.
 */
async function withInvalidation<T>(options: InvalidationOptions, io: CliIo, fn: (bus: InvalidationBus | undefined) => Promise<T>): Promise<T> {
  const url = options.redis ?? io.env['REDIS_URL']
  if (url === undefined || url === '') {
    const untold = new UntoldServers()
    const result = await fn(untold)
    if (untold.changed) {
      io.stderr.write(
        "gatehouse: warning: running servers were not told (no --redis or REDIS_URL); a server with a token cache keeps the old answer until the cache's TTL ends\n",
      )
    }
    return result
  }
  const { createRedisClient } = await import('../redis/redis-client.js')
  const { RedisInvalidationBus } = await import('../redis/redis-invalidation-bus.js')
  // Connection trouble matters only if a message then fails to go out; its text says more than the publish error.
  let connectionError: Error | null = null
  let warned = false
  const warn = (error: Error): void => {
    if (warned) return
    warned = true
    const reason = connectionError?.message ?? error.message
    io.stderr.write(`gatehouse: warning: running servers were not told through Redis (${reason}); their cached token authentications end within their cache's TTL\n`)
  }
  const redis = createRedisClient(url, { onError: (error) => (connectionError ??= error) })
  const channel = options.channel ?? invalidationChannel(nonEmpty(io.env['GATEHOUSE_REDIS_PREFIX']))
  const bus = new RedisInvalidationBus({ redis, channel, onError: warn })
  try {
    return await fn(bus)
  } finally {
    await bus.close()
    await redis.close()
  }
}

/**
 * `import-django --dry-run`: nothing is created or migrated. When gatehouse's user and token
 * tables are there, the import runs in a transaction that is rolled back; when they are not
 * (a new or missing database), it is counted against empty tables in a scratch in-memory
 * database instead, and the report says so.
 */
async function dryRunImport(
  options: DatabaseOption,
  io: CliIo,
  importInto: (database: Database<AuthDatabase>) => Promise<ImportDjangoReport>,
): Promise<ImportDjangoReport> {
  const TABLES = ['gatehouse_users', 'gatehouse_tokens']
  const probe = await openReadOnly(options, io)
  let ready = false
  try {
    ready = probe !== null && (await missingTables(probe, TABLES)).length === 0
  } finally {
    await probe?.close()
  }
  if (ready) {
    // Writes happen inside the import's transaction only, and are rolled back.
    const database = await openDatabase<AuthDatabase>(databaseUrl(options, io), CLI_TIMEOUTS)
    try {
      return await importInto(database)
    } finally {
      await database.close()
    }
  }
  const scratch = await openDatabase<AuthDatabase>('sqlite::memory:')
  try {
    await migrate(scratch.db, authMigrations(scratch.dialect))
    const report = await importInto(scratch)
    return { ...report, notes: ["gatehouse's tables are not in --database yet: counted as if they were empty", ...report.notes] }
  } finally {
    await scratch.close()
  }
}

/** Reads one line from a stream (the first line of stdin). */
function readLine(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    const onData = (chunk: Buffer | string): void => {
      text += chunk.toString()
      const newline = text.indexOf('\n')
      if (newline !== -1) finish(text.slice(0, newline))
    }
    const finish = (line: string): void => {
      stream.off('data', onData)
      stream.off('end', onEnd)
      stream.off('error', reject)
      stream.pause()
      resolve(line.endsWith('\r') ? line.slice(0, -1) : line)
    }
    const onEnd = (): void => finish(text)
    stream.on('data', onData)
    stream.once('end', onEnd)
    stream.once('error', reject)
    stream.resume()
  })
}

/** Asks for a password on a terminal without echoing it. */
function promptHidden(io: CliIo, question: string): Promise<string> {
  return new Promise((resolve) => {
    const output = io.stderr as NodeJS.WritableStream & { write(text: string): boolean }
    const rl = createInterface({ input: io.stdin, output, terminal: true })
    // Mute the echo: readline writes typed characters through _writeToOutput.
    const muted = rl as unknown as { _writeToOutput: (text: string) => void }
    output.write(question)
    muted._writeToOutput = () => undefined
    rl.question('', (answer) => {
      rl.close()
      output.write('\n')
      resolve(answer)
    })
  })
}

/**
 * The new password: `GATEHOUSE_PASSWORD`, or the first line of stdin with
 * `--password-stdin`, or asked twice on a terminal. Never a command-line argument
 * (arguments show in process lists and shell history).
 */
async function readPassword(options: PasswordOptions, io: CliIo): Promise<string> {
  let password: string
  const fromEnv = io.env['GATEHOUSE_PASSWORD']
  if (options.passwordStdin === true) {
    password = await readLine(io.stdin)
  } else if (fromEnv !== undefined) {
    password = fromEnv
  } else if (io.stdin.isTTY === true) {
    password = await promptHidden(io, 'Password: ')
    const again = await promptHidden(io, 'Password (again): ')
    if (again !== password) throw new CliError("the two passwords didn't match")
  } else {
    throw new CliError('no password: set GATEHOUSE_PASSWORD, pass --password-stdin, or run on a terminal to be asked')
  }
  if (password === '') throw new CliError('the password is empty')
  return password
}

function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505'
}

const databaseOption = (): Option =>
  new Option('--database <url>', 'database URL: sqlite:<path>, file:<path> or postgres://… (default: $DATABASE_URL)')
const redisOption = (): Option =>
  new Option('--redis <url>', "Redis URL through which running servers' token caches are told of the change (default: $REDIS_URL; unset: not told)")
const configOption = (): Option =>
  new Option('--config <file>', 'a JavaScript module whose onUserCreated(user, { db }) export is called for every user created (default: $GATEHOUSE_CONFIG)')
const channelOption = (): Option =>
  new Option(
    '--channel <name>',
    'the invalidation channel the servers listen on (default: <prefix>auth-invalidation, the prefix from $GATEHOUSE_REDIS_PREFIX or gatehouse:, as servers derive it)',
  )

/** A user of gatehouse's own table, by name, or a CliError. */
async function existingUser(users: KyselyUserStore, username: string): Promise<{ readonly id: number | string }> {
  const user = await users.findByUsername(username)
  if (user === null) throw new CliError(`user ${username} does not exist`)
  return user
}

/** The `--config` module (or `GATEHOUSE_CONFIG`'s), or `undefined` when none is named. */
async function loadConfig(options: ConfigOption, io: CliIo): Promise<Awaited<ReturnType<typeof loadCliConfig>>> {
  try {
    return await loadCliConfig(options.config ?? io.env['GATEHOUSE_CONFIG'])
  } catch (error) {
    if (error instanceof CliConfigError) throw new CliError(error.message)
    throw error
  }
}

/** Rows of active users read at once by `create-token --all`. */
const ALL_TOKENS_BATCH = 500

/**
 * `create-token --all`: a token for every active user of gatehouse's table that has none
 * (get-or-create, in batches; an existing token is never replaced).
 */
async function createMissingTokens(db: Database<AuthDatabase>['db']): Promise<{ created: number; active: number }> {
  const tokens = new KyselyTokenStore({ db })
  let created = 0
  let active = 0
  let after = 0
  for (;;) {
    const rows = await db
      .selectFrom('gatehouse_users as u')
      .leftJoin('gatehouse_tokens as t', 't.user_id', 'u.id')
      .select(['u.id as id', 't.user_id as has_token'])
      .where('u.is_active', '=', 1)
      .where('u.id', '>', after)
      .orderBy('u.id')
      .limit(ALL_TOKENS_BATCH)
      .execute()
    if (rows.length === 0) break
    active += rows.length
    after = Number(rows[rows.length - 1]?.id)
    created += await tokens.createMissing(rows.filter((row) => row.has_token === null).map((row) => Number(row.id)))
  }
  return { created, active }
}

/** Builds the command line; `io` receives its output. */
export function buildCli(io: CliIo): Command {
  const print = (line: string): void => void io.stdout.write(`${line}\n`)
  const program = new Command('gatehouse')
    .description("gatehouse's tables in your database: migrations, users, tokens and sessions (never seeds data)")
    .exitOverride()
    .configureOutput({ writeOut: (text) => void io.stdout.write(text), writeErr: (text) => void io.stderr.write(text) })

  program
    .command('migrate')
    .description("create or update gatehouse's tables (tracked in gatehouse_migrations, apart from your app's migrations)")
    .addOption(databaseOption())
    .action(async (options: DatabaseOption) => {
      await withDatabase(options, io, async (database) => print(`gatehouse tables are up to date (${database.dialect})`))
    })

  program
    .command('create-user')
    .description('create a user; the password comes from GATEHOUSE_PASSWORD, --password-stdin, or a prompt')
    .argument('<username>')
    .addOption(databaseOption())
    .option('--staff', 'make the user staff (is_staff)')
    .option('--inactive', 'create the user inactive')
    .option('--no-password', 'give the user no usable password (they cannot log in with one)')
    .option('--password-stdin', 'read the password from the first line of stdin')
    .addOption(configOption())
    .action(async (username: string, options: DatabaseOption & PasswordOptions & ConfigOption & { staff?: boolean; inactive?: boolean; password: boolean }) => {
      if (username.length === 0 || username.length > 150 || username.includes('\0')) {
        throw new CliError('username must be 1 to 150 characters')
      }
      const config = await loadConfig(options, io)
      const password = options.password ? await readPassword(options, io) : null
      await withDatabase(options, io, async (database) => {
        const onUserCreated = boundHook(config, { db: database.db, dialect: database.dialect })
        const users = new KyselyUserStore({ db: database.db, onUserCreated })
        if ((await users.findByUsername(username)) !== null) throw new CliError(`user ${username} already exists`)
        try {
          const user = await users.create({ username, password, isStaff: options.staff === true, isActive: options.inactive !== true })
          print(`Created user ${user.username} (id ${String(user.id)})${password === null ? ' with no usable password' : ''}`)
        } catch (error) {
          if (isUniqueViolation(error)) throw new CliError(`user ${username} already exists`)
          if (error instanceof UserCreatedHookError) throw new CliError(error.message)
          throw error
        }
      })
    })

  program
    .command('changepassword')
    .description("set a user's password (GATEHOUSE_PASSWORD, --password-stdin, or a prompt)")
    .argument('<username>')
    .addOption(databaseOption())
    .addOption(redisOption())
    .addOption(channelOption())
    .option('--password-stdin', 'read the password from the first line of stdin')
    .action(async (username: string, options: DatabaseOption & PasswordOptions & InvalidationOptions) => {
      await withInvalidation(options, io, (invalidation) =>
        withDatabase(options, io, async (database) => {
          const users = new KyselyUserStore({ db: database.db, invalidation })
          const user = await existingUser(users, username)
          const password = await readPassword(options, io)
          await users.setPassword(user.id, password)
          print(`Password changed successfully for user ${username}`)
        }),
      )
    })

  // Flag changes: each is published, since cached token authentications hold the user's flags.
  const flagCommands: readonly {
    readonly name: string
    readonly description: string
    readonly done: string
    readonly apply: (users: KyselyUserStore, id: number | string) => Promise<boolean>
  }[] = [
    {
      name: 'deactivate-user',
      description: 'deactivate a user: their password, token and sessions stop working on every server (nothing is deleted)',
      done: 'Deactivated user',
      apply: (users, id) => users.setActive(id, false),
    },
    {
      name: 'activate-user',
      description: 'activate a user again: their password, token and sessions work again',
      done: 'Activated user',
      apply: (users, id) => users.setActive(id, true),
    },
    {
      name: 'grant-staff',
      description: 'make a user staff (is_staff, what IsAdminUser allows), on every server',
      done: 'Granted staff status to user',
      apply: (users, id) => users.setStaff(id, true),
    },
    {
      name: 'revoke-staff',
      description: "take a user's staff status away (is_staff), on every server",
      done: 'Revoked staff status of user',
      apply: (users, id) => users.setStaff(id, false),
    },
  ]
  for (const command of flagCommands) {
    program
      .command(command.name)
      .description(command.description)
      .argument('<username>')
      .addOption(databaseOption())
      .addOption(redisOption())
      .addOption(channelOption())
      .action(async (username: string, options: DatabaseOption & InvalidationOptions) => {
        await withInvalidation(options, io, (invalidation) =>
          withDatabase(options, io, async (database) => {
            const users = new KyselyUserStore({ db: database.db, invalidation })
            const user = await existingUser(users, username)
            await command.apply(users, user.id)
            print(`${command.done} ${username}`)
          }),
        )
      })
  }

  program
    .command('create-token')
    .description("print a user's token, creating it if missing (DRF's drf_create_token); --all: a token for every active user without one")
    .argument('[username]')
    .addOption(databaseOption())
    .addOption(redisOption())
    .addOption(channelOption())
    .option('-r, --reset', 'regenerate the token (for a leaked one): the old key stops working')
    .option('--all', 'get-or-create a token for every active user (never regenerates; prints counts, never keys)')
    .action(async (username: string | undefined, options: DatabaseOption & InvalidationOptions & { reset?: boolean; all?: boolean }) => {
      if (options.all === true) {
        if (username !== undefined) throw new CliError('create-token --all takes no username')
        if (options.reset === true) throw new CliError('create-token --all never regenerates: --reset is for one user')
        await withDatabase(options, io, async (database) => {
          const { created, active } = await createMissingTokens(database.db)
          print(`Created ${created} token${created === 1 ? '' : 's'}; ${active - created} active user${active - created === 1 ? '' : 's'} already had one`)
        })
        return
      }
      if (username === undefined) throw new CliError('create-token needs a username (or --all)')
      // Only a reset changes a key that servers may hold: plain get-or-create needs no Redis.
      const run = async (invalidation: InvalidationBus | undefined): Promise<void> =>
        withDatabase(options, io, async (database) => {
          const user = await new KyselyUserStore({ db: database.db }).findByUsername(username)
          if (user === null) throw new CliError(`Cannot create the Token: user ${username} does not exist`)
          const tokens = new KyselyTokenStore({ db: database.db, invalidation })
          const token = options.reset === true ? await tokens.regenerate(user.id) : await tokens.getOrCreate(user.id)
          print(`Generated token ${token.key} for user ${username}`)
        })
      await (options.reset === true ? withInvalidation(options, io, run) : run(undefined))
    })

  program
    .command('delete-token')
    .description("delete a user's token: the key stops working on every server (create-token makes a new one)")
    .argument('<username>')
    .addOption(databaseOption())
    .addOption(redisOption())
    .addOption(channelOption())
    .action(async (username: string, options: DatabaseOption & InvalidationOptions) => {
      await withInvalidation(options, io, (invalidation) =>
        withDatabase(options, io, async (database) => {
          const user = await existingUser(new KyselyUserStore({ db: database.db }), username)
          const deleted = await new KyselyTokenStore({ db: database.db, invalidation }).delete(user.id)
          print(deleted ? `Deleted the token of user ${username}` : `User ${username} had no token`)
        }),
      )
    })

  // The safer token mode: create-named-token, list-named-tokens, revoke-named-token, clear-expired-tokens, migrate-tokens.
  addNamedTokenCommands(program, {
    print,
    withDatabase: (options, fn) => withDatabase(options, io, fn),
    withReadOnlyDatabase: (options, tables, fn) => withReadOnlyDatabase(options, io, tables, fn),
    withInvalidation: (options, fn) => withInvalidation(options, io, fn),
    databaseOption,
    redisOption,
    channelOption,
    fail: (message) => new CliError(message),
  })

  program
    .command('clear-sessions')
    .description("delete expired SQL sessions (Django's clearsessions); Redis sessions expire by themselves")
    .addOption(databaseOption())
    .action(async (options: DatabaseOption) => {
      await withDatabase(options, io, async (database) => {
        const removed = await new KyselySessionStore({ db: database.db }).clearExpired()
        print(`Deleted ${removed} expired session${removed === 1 ? '' : 's'}`)
      })
    })

  program
    .command('flush-expired-tokens')
    .description("delete expired JWT refresh tokens from the blacklist table (simplejwt's flushexpiredtokens)")
    .addOption(databaseOption())
    .action(async (options: DatabaseOption) => {
      await withDatabase(options, io, async (database) => {
        await migrate(database.db, jwtBlacklistMigrations(database.dialect), 'gatehouse_jwt_migrations')
        const db = database.db as unknown as Kysely<JwtBlacklistDatabase>
        const removed = await new KyselyJwtBlacklistStore({ db }).flushExpired(new Date())
        print(`Deleted ${removed} expired token${removed === 1 ? '' : 's'}`)
      })
    })

  program
    .command('import-django')
    .description("copy users (auth_user) and DRF tokens (authtoken_token) from a Django database into gatehouse's tables; running it again changes nothing")
    .requiredOption('--from <url>', 'the Django database, read only: sqlite:<path>, file:<path> or postgres://…')
    .addOption(databaseOption())
    .option('--update', "refresh users already in gatehouse from Django (flags, date joined, token, and a password gatehouse never set); default: leave them as they are")
    .option('--superusers-as-staff', 'make Django superusers staff (default: is_staff as it is)')
    .option('--dry-run', 'print what the import would do and write nothing (no tables created either)')
    .addOption(redisOption())
    .addOption(channelOption())
    .addOption(configOption())
    .action(async (options: DatabaseOption & InvalidationOptions & ConfigOption & { from: string; update?: boolean; superusersAsStaff?: boolean; dryRun?: boolean }) => {
      const config = await loadConfig(options, io)
      // Everything is read before the target is opened: source and target may be one database.
      const source = await readDjangoDatabase(options.from)
      const importInto = (database: Database<AuthDatabase>): Promise<ImportDjangoReport> =>
        importDjango(database, source, {
          update: options.update === true,
          dryRun: options.dryRun === true,
          superusersAsStaff: options.superusersAsStaff === true,
          onUserCreated: boundHook(config, { db: database.db, dialect: database.dialect }),
        })
      if (options.dryRun === true) {
        for (const line of formatImportReport(await dryRunImport(options, io, importInto))) print(line)
        return
      }
      const run = async (invalidation: InvalidationBus | undefined): Promise<void> =>
        withDatabase(options, io, async (database) => {
          const report = await importInto(database)
          for (const line of formatImportReport(report)) print(line)
          for (const id of report.changedUserIds) await invalidation?.publish(id)
          if (report.hookFailures > 0) throw new CliError(`onUserCreated failed for ${report.hookFailures} imported user${report.hookFailures === 1 ? '' : 's'} (the import itself is committed)`)
        })
      // Only --update changes what running servers may have cached.
      await (options.update === true ? withInvalidation(options, io, run) : run(undefined))
    })

  return program
}

/** Runs the command line with `argv` (without node and the script); resolves to the exit code. */
export async function main(argv: readonly string[], io: CliIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  try {
    await buildCli(io).parseAsync([...argv], { from: 'user' })
    return 0
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode
    if (error instanceof CliError) {
      io.stderr.write(`gatehouse: ${error.message}\n`)
      return 1
    }
    // A driver missing, a database that refuses: the message, never a stack trace.
    io.stderr.write(`gatehouse: ${error instanceof Error ? error.message : String(error)}\n`)
    return 1
  }
}
