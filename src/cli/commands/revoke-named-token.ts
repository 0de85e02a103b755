import type { Command } from 'commander'
import { parseTokenId } from '../../views/named-token-input.js'
import { CliError } from '../cli-io.js'
import { existingUser, type CommandKit } from '../command-kit.js'
import { addStoreOptions, type DatabaseOption, type InvalidationOptions } from '../store-options.js'

export function addRevokeNamedTokenCommand(program: Command, kit: CommandKit): void {
  addStoreOptions(
    program
      .command('revoke-named-token')
      .description("revoke one of a user's named tokens by id, or all of them with --all (told to running servers through Redis)")
      .argument('<username>')
      .argument('[id]')
      .option('--all', 'revoke every named token of the user'),
  ).action(async (username: string, idText: string | undefined, options: DatabaseOption & InvalidationOptions & { all?: boolean }) => {
    if ((idText === undefined) === (options.all !== true)) throw new CliError('give a token id or --all (not both)')
    const id = idText === undefined ? null : parseTokenId(idText)
    if (idText !== undefined && id === null) throw new CliError(`${idText} is not a token id`)
    await kit.withChange(options, async (database, invalidation) => {
      const { KyselyNamedTokenStore, KyselyUserStore } = await kit.sql()
      const user = await existingUser(new KyselyUserStore({ db: database.db }), username)
      const store = new KyselyNamedTokenStore({ db: database.db, invalidation })
      if (id === null) {
        const count = await store.revokeAll(user.id)
        kit.print(`Revoked ${count} named token${count === 1 ? '' : 's'} of user ${username}`)
      } else if (await store.revoke(user.id, id)) {
        kit.print(`Revoked named token ${id} of user ${username}`)
      } else {
        throw new CliError(`user ${username} has no named token ${id}`)
      }
    })
  })
}
