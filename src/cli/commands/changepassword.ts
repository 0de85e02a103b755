// Django's `changepassword`; the change is told to running servers.
import type { Command } from 'commander'
import { existingUser, type CommandKit } from '../command-kit.js'
import { readPassword, type PasswordOptions } from '../password-input.js'
import { addPasswordValidationOption, requireValidPassword, type PasswordValidationOption } from '../password-rules.js'
import { addConfigOption, addStoreOptions, type ConfigOption, type DatabaseOption, type InvalidationOptions } from '../store-options.js'

type ChangepasswordOptions = DatabaseOption & PasswordOptions & PasswordValidationOption & ConfigOption & InvalidationOptions

export function addChangepasswordCommand(program: Command, kit: CommandKit): void {
  const command = addStoreOptions(
    program
      .command('changepassword')
      .description("set a user's password (GATEHOUSE_PASSWORD, --password-stdin, or a prompt), checked by the password validators")
      .argument('<username>'),
  ).option('--password-stdin', 'read the password from the first line of stdin')
  addConfigOption(addPasswordValidationOption(command)).action(async (username: string, options: ChangepasswordOptions) => {
    const validators = await kit.loadPasswordValidators(options)
    await kit.withChange(options, async (database, invalidation) => {
      const { KyselyUserStore } = await kit.sql()
      const users = new KyselyUserStore({ db: database.db, invalidation })
      const user = await existingUser(users, username)
      const password = await readPassword(options, kit.io)
      // The stored user: the similarity check compares the password with its username.
      await requireValidPassword(password, user, validators, options, kit.io, `password not changed for user ${username}`)
      await users.setPassword(user.id, password)
      kit.print(`Password changed successfully for user ${username}`)
    })
  })
}
