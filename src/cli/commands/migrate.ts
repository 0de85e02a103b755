import type { Command } from 'commander'
import type { CommandKit } from '../command-kit.js'
import { addDatabaseOption, type DatabaseOption } from '../store-options.js'

export function addMigrateCommand(program: Command, kit: CommandKit): void {
  addDatabaseOption(
    program
      .command('migrate')
      .description("create or update gatehouse's tables (tracked in gatehouse_migrations, apart from your app's migrations)"),
  ).action(async (options: DatabaseOption) => {
    await kit.withDatabase(options, async (database) => kit.print(`gatehouse tables are up to date (${database.dialect})`))
  })
}
