import type { Command } from 'commander'
import { parseExpiresIn } from '../../views/named-token-input.js'
import { CliError } from '../cli-io.js'
import { existingUser, type CommandKit } from '../command-kit.js'
import { addDatabaseOption, type DatabaseOption } from '../store-options.js'

interface CreateNamedTokenOptions extends DatabaseOption {
  readonly name: string
  readonly expiresIn?: string
  readonly prefix?: string
}

function prefixOption(value: string | undefined): { prefix?: string } {
  if (value === undefined) return {}
  if (!/^[A-Za-z0-9_]{0,16}$/.test(value)) throw new CliError('--prefix must be up to 16 of [A-Za-z0-9_]')
  return { prefix: value }
}

export function addCreateNamedTokenCommand(program: Command, kit: CommandKit): void {
  addDatabaseOption(
    program
      .command('create-named-token')
      .description('create a named token for a user (safer mode: only its digest is stored); the token is printed once')
      .argument('<username>')
      .requiredOption('--name <name>', 'a label for the token, 1 to 100 characters')
      .option('--expires-in <seconds>', 'seconds until it stops working (default: never)')
      .option('--prefix <prefix>', 'put before the token, for secret scanners (default: gth_)'),
  ).action(async (username: string, options: CreateNamedTokenOptions) => {
    const name = options.name.trim()
    if (name.length === 0 || name.length > 100 || name.includes('\0')) throw new CliError('--name must be 1 to 100 characters')
    const expires = parseExpiresIn(options.expiresIn)
    if ('errors' in expires) throw new CliError(`--expires-in: ${expires.errors.join(' ')}`)
    await kit.withDatabase(options, async (database) => {
      const { KyselyNamedTokenStore, KyselyUserStore } = await kit.sql()
      const user = await existingUser(new KyselyUserStore({ db: database.db }), username)
      const store = new KyselyNamedTokenStore({ db: database.db, ...prefixOption(options.prefix) })
      const { key, info } = await store.create(user.id, { name, expiresIn: expires.value })
      const until = info.expiresAt === null ? 'never expires' : `expires ${info.expiresAt.toISOString()}`
      kit.print(`Generated named token ${key} for user ${username} (id ${info.id}, name ${JSON.stringify(name)}, ${until})`)
      kit.print('It is shown only now: only its digest is stored.')
    })
  })
}
