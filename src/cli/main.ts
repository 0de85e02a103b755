/**
 * The `drf-gatehouse` command line, for a user's own database: it touches only the library's
 * tables (users, tokens, sessions) and its own migration table, and never seeds anything.
 * Django's `migrate`, `createsuperuser`, `changepassword`, `drf_create_token` and
 * `clearsessions`, in one command. Commands that change a user's credentials tell running
 * servers' token caches through Redis pub/sub when `REDIS_URL` (or `--redis`) is set.
 * Each command is a file of `commands/`; the options they share are `store-options.ts`.
 */
import { Command, CommanderError } from 'commander'
import { CliError, type CliIo } from './cli-io.js'
import { commandKit } from './command-kit.js'
import { addActivateCommand } from './commands/activate-user.js'
import { addChangepasswordCommand } from './commands/changepassword.js'
import { addClearExpiredTokensCommand } from './commands/clear-expired-tokens.js'
import { addClearSessionsCommand } from './commands/clear-sessions.js'
import { addCreateNamedTokenCommand } from './commands/create-named-token.js'
import { addCreateTokenCommand } from './commands/create-token.js'
import { addCreateUserCommand } from './commands/create-user.js'
import { addDeactivateCommand } from './commands/deactivate-user.js'
import { addDeleteTokenCommand } from './commands/delete-token.js'
import { addDevIssuerCommand } from './commands/dev-issuer.js'
import { addFlushExpiredTokensCommand } from './commands/flush-expired-tokens.js'
import { addGrantStaffCommand } from './commands/grant-staff.js'
import { addGrantSuperuserCommand, addRevokeSuperuserCommand } from './commands/grant-superuser.js'
import { addImportDjangoCommand } from './commands/import-django.js'
import { addListNamedTokensCommand } from './commands/list-named-tokens.js'
import { addMigrateCommand } from './commands/migrate.js'
import { addMigrateTokensCommand } from './commands/migrate-tokens.js'
import { addRevokeNamedTokenCommand } from './commands/revoke-named-token.js'
import { addRevokeStaffCommand } from './commands/revoke-staff.js'

export type { CliIo } from './cli-io.js'

/** The commands, in the order `--help` lists them. */
const COMMANDS = [
  addMigrateCommand,
  addCreateUserCommand,
  addChangepasswordCommand,
  addDeactivateCommand,
  addActivateCommand,
  addGrantStaffCommand,
  addRevokeStaffCommand,
  addGrantSuperuserCommand,
  addRevokeSuperuserCommand,
  addCreateTokenCommand,
  addDeleteTokenCommand,
  // The safer token mode.
  addCreateNamedTokenCommand,
  addListNamedTokensCommand,
  addRevokeNamedTokenCommand,
  addClearExpiredTokensCommand,
  addMigrateTokensCommand,
  addClearSessionsCommand,
  addFlushExpiredTokensCommand,
  addImportDjangoCommand,
  // For trying JWT and OAuth 2.0 locally.
  addDevIssuerCommand,
] as const

/** Builds the command line; `io` receives its output. */
export function buildCli(io: CliIo): Command {
  const program = new Command('drf-gatehouse')
    .description("gatehouse's tables in your database: migrations, users, tokens and sessions (never seeds data)")
    .exitOverride()
    .configureOutput({ writeOut: (text) => void io.stdout.write(text), writeErr: (text) => void io.stderr.write(text) })
  const kit = commandKit(io)
  for (const add of COMMANDS) add(program, kit)
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
    const missing = missingPackage(error)
    if (missing !== undefined) {
      io.stderr.write(`gatehouse: this command needs the ${missing} package, which is not installed: npm install ${missing}\n`)
      return 1
    }
    // A driver missing, a database that refuses: the message, never a stack trace.
    io.stderr.write(`gatehouse: ${error instanceof Error ? error.message : String(error)}\n`)
    return 1
  }
}

/**
 * The optional peer (kysely, pg, ioredis…) a command loaded and did not find, from Node's
 * `ERR_MODULE_NOT_FOUND` ("Cannot find package 'kysely' imported from …"); `undefined` for any
 * other error. The command line itself loads none (see sql-layer.ts), so `--help` needs none.
 */
function missingPackage(error: unknown): string | undefined {
  if (!(error instanceof Error) || (error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') return undefined
  return /Cannot find package '([^']+)'/.exec(error.message)?.[1]
}
