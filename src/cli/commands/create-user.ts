// Django's `createsuperuser`, without its prompts for other fields.
import type { Command } from 'commander'
import { normalizeUsername } from '../../core/username.js'
import { UserCreatedHookError } from '../../stores/user-created-hook.js'
import { CliError } from '../cli-io.js'
import type { CommandKit } from '../command-kit.js'
import { readPassword, type PasswordOptions } from '../password-input.js'
import { addPasswordValidationOption, requireValidPassword, type PasswordValidationOption } from '../password-rules.js'
import { addConfigOption, addDatabaseOption, type ConfigOption, type DatabaseOption } from '../store-options.js'

interface CreateUserOptions extends DatabaseOption, PasswordOptions, PasswordValidationOption, ConfigOption {
  readonly staff?: boolean
  readonly superuser?: boolean
  readonly inactive?: boolean
  /** `--no-password` sets it false. */
  readonly password: boolean
}

function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505'
}

export function addCreateUserCommand(program: Command, kit: CommandKit): void {
  const command = addDatabaseOption(
    program
      .command('create-user')
      .description('create a user; the password comes from GATEHOUSE_PASSWORD, --password-stdin, or a prompt')
      .argument('<username>'),
  )
    .option('--staff', 'make the user staff (is_staff)')
    .option('--superuser', "make the user a superuser and staff (Django's createsuperuser: is_superuser and is_staff)")
    .option('--inactive', 'create the user inactive')
    .option('--no-password', 'give the user no usable password (they cannot log in with one)')
    .option('--password-stdin', 'read the password from the first line of stdin')
  addConfigOption(addPasswordValidationOption(command)).action(async (given: string, options: CreateUserOptions) => {
    // NFKC, as Django's createsuperuser (normalize_username): `ａｄｍｉｎ` is `admin`.
    const username = normalizeUsername(given)
    if (username.length === 0 || username.length > 150 || username.includes('\0')) {
      throw new CliError('username must be 1 to 150 characters')
    }
    const hookFor = await kit.loadUserCreatedHook(options)
    const validators = await kit.loadPasswordValidators(options)
    const password = options.password ? await readPassword(options, kit.io) : null
    await kit.withDatabase(options, async (database) => {
      const { KyselyUserStore } = await kit.sql()
      const users = new KyselyUserStore({ db: database.db, onUserCreated: hookFor(database) })
      if ((await users.findByUsername(username)) !== null) throw new CliError(`user ${username} already exists`)
      // As Django's createsuperuser: the name first, then the password's rules, before anything is written.
      if (password !== null) await requireValidPassword(password, { username }, validators, options, kit.io, `user ${username} not created`)
      try {
        const user = await users.create({ username, password, isStaff: options.staff === true || options.superuser === true, isSuperuser: options.superuser === true, isActive: options.inactive !== true })
        kit.print(`Created user ${user.username} (id ${String(user.id)})${password === null ? ' with no usable password' : ''}`)
      } catch (error) {
        if (isUniqueViolation(error)) throw new CliError(`user ${username} already exists`)
        if (error instanceof UserCreatedHookError) throw new CliError(error.message)
        throw error
      }
    })
  })
}
