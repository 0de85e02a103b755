import type { Command } from 'commander'
import { toDate, toUserId, type AuthDatabase } from '../../kysely/schema.js'
import type { CommandKit } from '../command-kit.js'
import { addDatabaseOption, type DatabaseOption } from '../store-options.js'

/** The name DRF-mode tokens get when `migrate-tokens` moves them. */
const MIGRATED_NAME = 'drf'

export function addMigrateTokensCommand(program: Command, kit: CommandKit): void {
  addDatabaseOption(
    program
      .command('migrate-tokens')
      .description(`move DRF-mode tokens into the safer mode: each key is kept as a digest (named "${MIGRATED_NAME}"), so clients keep their key; the DRF rows are deleted unless --keep`)
      .option('--keep', 'keep the DRF rows too (the keys then work in both modes)'),
  ).action(async (options: DatabaseOption & { keep?: boolean }) => {
    await kit.withDatabase(options, async (database) => {
      const { KyselyNamedTokenStore } = await kit.sql()
      const { moved, present } = await database.db.transaction().execute(async (trx) => {
        const store = new KyselyNamedTokenStore<AuthDatabase>({ db: trx })
        const rows = await trx.selectFrom('gatehouse_tokens').select(['key', 'user_id', 'created']).orderBy('user_id').execute()
        let count = 0
        for (const row of rows) {
          const adopted = await store.adopt(toUserId(row.user_id), row.key, { name: MIGRATED_NAME, created: toDate(row.created) })
          if (adopted !== null) count += 1
          // Only the rows read (and now adopted): a token made meanwhile stays for the next run.
          if (options.keep !== true) await trx.deleteFrom('gatehouse_tokens').where('key', '=', row.key).execute()
        }
        return { moved: count, present: rows.length - count }
      })
      const kept = options.keep === true ? ' (DRF rows kept)' : ''
      kit.print(`Moved ${moved} DRF token${moved === 1 ? '' : 's'} into named tokens${kept}; ${present} already there`)
      if (options.keep !== true && moved + present > 0) {
        // The DRF rows are gone, but an obtain endpoint left as it was would store new plaintext keys.
        kit.print('Now switch the token obtain endpoint (obtainAuthTokenView) to named tokens with namedTokenIssuer, or unmount it: as it is, it stores a new plaintext DRF key for every user it serves')
      }
    })
  })
}
