import type { Command } from 'commander'
import { existingUser, type CommandKit } from '../command-kit.js'
import { addStoreOptions, type DatabaseOption, type InvalidationOptions } from '../store-options.js'

export function addDeleteTokenCommand(program: Command, kit: CommandKit): void {
  addStoreOptions(
    program
      .command('delete-token')
      .description("delete a user's token: the key stops working on every server (create-token makes a new one)")
      .argument('<username>'),
  ).action(async (username: string, options: DatabaseOption & InvalidationOptions) => {
    await kit.withChange(options, async (database, invalidation) => {
      const { KyselyTokenStore, KyselyUserStore } = await kit.sql()
      const user = await existingUser(new KyselyUserStore({ db: database.db }), username)
      const deleted = await new KyselyTokenStore({ db: database.db, invalidation }).delete(user.id)
      kit.print(deleted ? `Deleted the token of user ${username}` : `User ${username} had no token`)
    })
  })
}
