import type { Command } from 'commander'
import type { CommandKit } from '../command-kit.js'
import { addDatabaseOption, type DatabaseOption } from '../store-options.js'

export function addClearSessionsCommand(program: Command, kit: CommandKit): void {
  addDatabaseOption(
    program.command('clear-sessions').description("delete expired SQL sessions (Django's clearsessions); Redis sessions expire by themselves"),
  ).action(async (options: DatabaseOption) => {
    await kit.withDatabase(options, async (database) => {
      const { KyselySessionStore } = await kit.sql()
      const removed = await new KyselySessionStore({ db: database.db }).clearExpired()
      kit.print(`Deleted ${removed} expired session${removed === 1 ? '' : 's'}`)
    })
  })
}
