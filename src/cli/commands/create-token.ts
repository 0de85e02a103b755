import type { Command } from 'commander'
import type { Database } from '../../kysely/database.js'
import type { AuthDatabase } from '../../kysely/schema.js'
import { CliError } from '../cli-io.js'
import type { CommandKit } from '../command-kit.js'
import { addStoreOptions, type DatabaseOption, type InvalidationOptions } from '../store-options.js'

interface CreateTokenOptions extends DatabaseOption, InvalidationOptions {
  readonly reset?: boolean
  readonly all?: boolean
}

/** Rows of active users read at once by `create-token --all`. */
const ALL_TOKENS_BATCH = 500

/**
 * `create-token --all`: a token for every active user of gatehouse's table that has none
 * (get-or-create, in batches; an existing token is never replaced).
 */
async function createMissingTokens(kit: CommandKit, db: Database<AuthDatabase>['db']): Promise<{ created: number; active: number }> {
  const { KyselyTokenStore } = await kit.sql()
  const tokens = new KyselyTokenStore({ db })
  let created = 0
  let active = 0
  let after = 0
  for (;;) {
    const rows = await db
      .selectFrom('gatehouse_users as u')
      .leftJoin('gatehouse_tokens as t', 't.user_id', 'u.id')
      .select(['u.id as id', 't.user_id as has_token'])
      .where('u.is_active', '=', 1)
      .where('u.id', '>', after)
      .orderBy('u.id')
      .limit(ALL_TOKENS_BATCH)
      .execute()
    if (rows.length === 0) break
    active += rows.length
    after = Number(rows[rows.length - 1]?.id)
    created += await tokens.createMissing(rows.filter((row) => row.has_token === null).map((row) => Number(row.id)))
  }
  return { created, active }
}

export function addCreateTokenCommand(program: Command, kit: CommandKit): void {
  addStoreOptions(
    program
      .command('create-token')
      .description("print a user's token, creating it if missing (DRF's drf_create_token); --all: a token for every active user without one")
      .argument('[username]'),
  )
    .option('-r, --reset', 'regenerate the token (for a leaked one): the old key stops working')
    .option('--all', 'get-or-create a token for every active user (never regenerates; prints counts, never keys)')
    .action(async (username: string | undefined, options: CreateTokenOptions) => {
      if (options.all === true) {
        if (username !== undefined) throw new CliError('create-token --all takes no username')
        if (options.reset === true) throw new CliError('create-token --all never regenerates: --reset is for one user')
        await kit.withDatabase(options, async (database) => {
          const { created, active } = await createMissingTokens(kit, database.db)
          kit.print(`Created ${created} token${created === 1 ? '' : 's'}; ${active - created} active user${active - created === 1 ? '' : 's'} already had one`)
        })
        return
      }
      if (username === undefined) throw new CliError('create-token needs a username (or --all)')
      // Only a reset changes a key that servers may hold: plain get-or-create needs no Redis.
      await kit.withChange(
        options,
        async (database, invalidation) => {
          const { KyselyTokenStore, KyselyUserStore } = await kit.sql()
          const user = await new KyselyUserStore({ db: database.db }).findByUsername(username)
          if (user === null) throw new CliError(`Cannot create the Token: user ${username} does not exist`)
          const tokens = new KyselyTokenStore({ db: database.db, invalidation })
          const token = options.reset === true ? await tokens.regenerate(user.id) : await tokens.getOrCreate(user.id)
          kit.print(`Generated token ${token.key} for user ${username}`)
        },
        options.reset === true,
      )
    })
}
