/**
 * The options every command that touches gatehouse's stores shares, added in one place so
 * they read the same in every command's help: `--database`, `--redis` with `--channel`,
 * and `--config`. `CommandKit` resolves them.
 */
import { Option, type Command } from 'commander'

/** `--database <url>`. */
export interface DatabaseOption {
  readonly database?: string
}

/** `--redis <url>` and `--channel <name>`. */
export interface InvalidationOptions {
  readonly redis?: string
  readonly channel?: string
}

/** `--config <file>`. */
export interface ConfigOption {
  readonly config?: string
}

export function addDatabaseOption(command: Command): Command {
  return command.addOption(new Option('--database <url>', 'database URL: sqlite:<path>, file:<path> or postgres://… (default: $DATABASE_URL)'))
}

/** Adds `--redis` and `--channel` to `command`: how running servers are told of a change. */
export function addInvalidationOptions(command: Command): Command {
  return command
    .addOption(new Option('--redis <url>', "Redis URL through which running servers' token caches are told of the change (default: $REDIS_URL; unset: not told)"))
    .addOption(
      new Option(
        '--channel <name>',
        'the invalidation channel the servers listen on (default: <prefix>auth-invalidation, the prefix from $GATEHOUSE_REDIS_PREFIX or gatehouse:, as servers derive it)',
      ),
    )
}

/** Adds `--database`, `--redis` and `--channel` to `command`, in that order. */
export function addStoreOptions(command: Command): Command {
  return addInvalidationOptions(addDatabaseOption(command))
}

export function addConfigOption(command: Command): Command {
  return command.addOption(
    new Option(
      '--config <file>',
      'a JavaScript module whose onUserCreated(user, { db }) export is called for every user created, and whose passwordValidators export replaces the default password validators (default: $GATEHOUSE_CONFIG)',
    ),
  )
}
