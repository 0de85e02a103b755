import type { StoredUser } from '../core/user.js'
import type { Database } from '../kysely/database.js'
import type { KyselyUserStore } from '../kysely/kysely-user-store.js'
import type { AuthDatabase } from '../kysely/schema.js'
import { defaultPasswordValidators, type PasswordValidator } from '../passwords/password-validation.js'
import type { InvalidationBus } from '../stores/invalidation-bus.js'
import type { UserCreatedHook } from '../stores/user-created-hook.js'
import type { CliConfig } from '../kysely/cli-config-types.js'
import { boundHook, CliConfigError, loadCliConfig } from './cli-config.js'
import { CliError, type CliIo } from './cli-io.js'
import { sqlLayer, withDatabase, withReadOnlyDatabase } from './database-access.js'
import { withInvalidation } from './invalidation-access.js'
import type * as SqlLayer from './sql-layer.js'
import type { ConfigOption, DatabaseOption, InvalidationOptions } from './store-options.js'

/**
 * What `buildCli` lends every command: its output, and the shared options (`store-options.ts`)
 * resolved into a migrated or read-only database and a bus that tells running servers.
 */
export interface CommandKit {
  readonly io: CliIo
  /** Writes one line to stdout. */
  readonly print: (line: string) => void
  /**
   * The SQL layer's stores and migrations, loaded when a command runs: a command file imports
   * them only as types, so building the command line (and `--help`) never loads kysely.
   */
  sql(): Promise<typeof SqlLayer>
  /** Runs `fn` on the `--database` database, migrated first. */
  withDatabase<T>(options: DatabaseOption, fn: (database: Database<AuthDatabase>) => Promise<T>): Promise<T>
  /** For commands that only read: no migration, nothing created (a missing database or table is an error). */
  withReadOnlyDatabase<T>(options: DatabaseOption, tables: readonly string[], fn: (database: Database<AuthDatabase>) => Promise<T>): Promise<T>
  /** Runs `fn` with the bus `--redis`/`--channel` name (warning when servers could not be told). */
  withInvalidation<T>(options: InvalidationOptions, fn: (bus: InvalidationBus | undefined) => Promise<T>): Promise<T>
  /**
   * Runs `fn` on the migrated database with the bus that tells running servers, or with
   * none when `tellServers` is false (a command whose change no server has cached).
   */
  withChange<T>(
    options: DatabaseOption & InvalidationOptions,
    fn: (database: Database<AuthDatabase>, bus: InvalidationBus | undefined) => Promise<T>,
    tellServers?: boolean,
  ): Promise<T>
  /** The `--config` module's hook (or `GATEHOUSE_CONFIG`'s), loaded now and bound per database. */
  loadUserCreatedHook(options: ConfigOption): Promise<(database: Database<AuthDatabase>) => UserCreatedHook | undefined>
  /** The `--config` module's `passwordValidators` (or `GATEHOUSE_CONFIG`'s); without one, Django's four defaults. */
  loadPasswordValidators(options: ConfigOption): Promise<readonly PasswordValidator[]>
}

/** The `--config` module (or `GATEHOUSE_CONFIG`'s), a load failure as a CliError. */
async function loadConfig(options: ConfigOption, io: CliIo): Promise<CliConfig | undefined> {
  try {
    return await loadCliConfig(options.config ?? io.env['GATEHOUSE_CONFIG'])
  } catch (error) {
    if (error instanceof CliConfigError) throw new CliError(error.message)
    throw error
  }
}

export function commandKit(io: CliIo): CommandKit {
  return {
    io,
    print: (line) => void io.stdout.write(`${line}\n`),
    sql: sqlLayer,
    withDatabase: (options, fn) => withDatabase(options, io, fn),
    withReadOnlyDatabase: (options, tables, fn) => withReadOnlyDatabase(options, io, tables, fn),
    withInvalidation: (options, fn) => withInvalidation(options, io, fn),
    withChange: (options, fn, tellServers = true) =>
      tellServers
        ? withInvalidation(options, io, (bus) => withDatabase(options, io, (database) => fn(database, bus)))
        : withDatabase(options, io, (database) => fn(database, undefined)),
    loadUserCreatedHook: async (options) => {
      const config = await loadConfig(options, io)
      return (database) => boundHook(config, { db: database.db, dialect: database.dialect })
    },
    loadPasswordValidators: async (options) => (await loadConfig(options, io))?.passwordValidators ?? defaultPasswordValidators(),
  }
}

/** A user of gatehouse's own table, by name, or a CliError. */
export async function existingUser(users: KyselyUserStore, username: string): Promise<StoredUser> {
  const user = await users.findByUsername(username)
  if (user === null) throw new CliError(`user ${username} does not exist`)
  return user
}
