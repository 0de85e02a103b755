/** `gatehouse changepassword`: a user's new password (Django's `changepassword`), told to running servers. */
import type { Command } from 'commander'
import { KyselyUserStore } from '../../kysely/kysely-user-store.js'
import { existingUser, type CommandKit } from '../command-kit.js'
import { readPassword, type PasswordOptions } from '../password-input.js'
import { addStoreOptions, type DatabaseOption, type InvalidationOptions } from '../store-options.js'

export function addChangepasswordCommand(program: Command, kit: CommandKit): void {
  addStoreOptions(
    program
      .command('changepassword')
      .description("set a user's password (GATEHOUSE_PASSWORD, --password-stdin, or a prompt)")
      .argument('<username>'),
  )
    .option('--password-stdin', 'read the password from the first line of stdin')
    .action(async (username: string, options: DatabaseOption & PasswordOptions & InvalidationOptions) => {
      await kit.withChange(options, async (database, invalidation) => {
        const users = new KyselyUserStore({ db: database.db, invalidation })
        const user = await existingUser(users, username)
        const password = await readPassword(options, kit.io)
        await users.setPassword(user.id, password)
        kit.print(`Password changed successfully for user ${username}`)
      })
    })
}
