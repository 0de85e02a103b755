import type { Command } from 'commander'
import { existingUser, type CommandKit } from '../command-kit.js'
import { addDatabaseOption, type DatabaseOption } from '../store-options.js'

export function addListNamedTokensCommand(program: Command, kit: CommandKit): void {
  addDatabaseOption(program.command('list-named-tokens').description("list a user's named tokens (never the tokens themselves)").argument('<username>')).action(
    async (username: string, options: DatabaseOption) => {
      // Read only: opens nothing it would have to create, and migrates nothing.
      await kit.withReadOnlyDatabase(options, ['gatehouse_users', 'gatehouse_named_tokens'], async (database) => {
        const { KyselyNamedTokenStore, KyselyUserStore } = await kit.sql()
        const user = await existingUser(new KyselyUserStore({ db: database.db }), username)
        const tokens = await new KyselyNamedTokenStore({ db: database.db }).list(user.id)
        if (tokens.length === 0) {
          kit.print(`User ${username} has no named tokens`)
          return
        }
        kit.print(['id', 'name', 'prefix', 'created', 'expires', 'last_used'].join('\t'))
        for (const t of tokens) {
          const when = (d: Date | null): string => (d === null ? '-' : d.toISOString())
          kit.print([String(t.id), JSON.stringify(t.name), `${t.displayPrefix}…`, when(t.created), when(t.expiresAt), when(t.lastUsedAt)].join('\t'))
        }
      })
    },
  )
}
