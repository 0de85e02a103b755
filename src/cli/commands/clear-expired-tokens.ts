import type { Command } from 'commander'
import type { CommandKit } from '../command-kit.js'
import { addDatabaseOption, type DatabaseOption } from '../store-options.js'

export function addClearExpiredTokensCommand(program: Command, kit: CommandKit): void {
  addDatabaseOption(
    program.command('clear-expired-tokens').description('delete expired named tokens (they are refused anyway; this keeps the table small)'),
  ).action(async (options: DatabaseOption) => {
    await kit.withDatabase(options, async (database) => {
      const { KyselyNamedTokenStore } = await kit.sql()
      const removed = await new KyselyNamedTokenStore({ db: database.db }).clearExpired()
      kit.print(`Deleted ${removed} expired named token${removed === 1 ? '' : 's'}`)
    })
  })
}
