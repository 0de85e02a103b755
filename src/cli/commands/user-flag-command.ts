/**
 * The commands that set one flag of a user (`deactivate-user`, `activate-user`,
 * `grant-staff`, `revoke-staff`): each change is told to running servers, since cached
 * token authentications hold the user's flags.
 */
import type { Command } from 'commander'
import type { KyselyUserStore } from '../../kysely/kysely-user-store.js'
import { existingUser, type CommandKit } from '../command-kit.js'
import { addStoreOptions, type DatabaseOption, type InvalidationOptions } from '../store-options.js'

/** One flag command: its name and help, what it prints when done, and the change it makes. */
export interface UserFlagCommand {
  readonly name: string
  readonly description: string
  readonly done: string
  readonly apply: (users: KyselyUserStore, id: number | string) => Promise<boolean>
}

export function addUserFlagCommand(program: Command, kit: CommandKit, command: UserFlagCommand): void {
  addStoreOptions(program.command(command.name).description(command.description).argument('<username>')).action(
    async (username: string, options: DatabaseOption & InvalidationOptions) => {
      await kit.withChange(options, async (database, invalidation) => {
        const { KyselyUserStore } = await kit.sql()
        const users = new KyselyUserStore({ db: database.db, invalidation })
        const user = await existingUser(users, username)
        await command.apply(users, user.id)
        kit.print(`${command.done} ${username}`)
      })
    },
  )
}
