/**
 * The command line of the safer token mode (named tokens kept as digests): create one (shown
 * once), list, revoke, and move DRF-mode tokens over. Added to `buildCli` by `main.ts`.
 */
import type { Command, Option } from 'commander'
import type { Database } from '../kysely/database.js'
import { KyselyNamedTokenStore } from '../kysely/kysely-named-token-store.js'
import { KyselyUserStore } from '../kysely/kysely-user-store.js'
import { toDate, toUserId, type AuthDatabase } from '../kysely/schema.js'
import type { InvalidationBus } from '../stores/invalidation-bus.js'
import { parseExpiresIn, parseTokenId } from '../views/named-token-input.js'

interface DatabaseOption {
  readonly database?: string
}

interface InvalidationOptions {
  readonly redis?: string
  readonly channel?: string
}

/** What `main.ts` lends these commands: its database, Redis and error plumbing. */
export interface NamedTokenCommandKit {
  readonly print: (line: string) => void
  readonly withDatabase: <T>(options: DatabaseOption, fn: (database: Database<AuthDatabase>) => Promise<T>) => Promise<T>
  /** For commands that only read: no migration, nothing created (a missing database or table is an error). */
  readonly withReadOnlyDatabase: <T>(options: DatabaseOption, tables: readonly string[], fn: (database: Database<AuthDatabase>) => Promise<T>) => Promise<T>
  readonly withInvalidation: <T>(options: InvalidationOptions, fn: (bus: InvalidationBus | undefined) => Promise<T>) => Promise<T>
  readonly databaseOption: () => Option
  readonly redisOption: () => Option
  readonly channelOption: () => Option
  /** An expected failure (`gatehouse: <message>`, exit code 1). */
  readonly fail: (message: string) => Error
}

/** The name DRF-mode tokens get when `migrate-tokens` moves them. */
const MIGRATED_NAME = 'drf'

async function userIdOf(database: Database<AuthDatabase>, username: string, kit: NamedTokenCommandKit): Promise<number | string> {
  const user = await new KyselyUserStore({ db: database.db }).findByUsername(username)
  if (user === null) throw kit.fail(`user ${username} does not exist`)
  return user.id
}

function prefixOption(value: string | undefined, kit: NamedTokenCommandKit): { prefix?: string } {
  if (value === undefined) return {}
  if (!/^[A-Za-z0-9_]{0,16}$/.test(value)) throw kit.fail('--prefix must be up to 16 of [A-Za-z0-9_]')
  return { prefix: value }
}

/** Adds `create-named-token`, `list-named-tokens`, `revoke-named-token`, `clear-expired-tokens` and `migrate-tokens` to `program`. */
export function addNamedTokenCommands(program: Command, kit: NamedTokenCommandKit): void {
  const { print } = kit

  program
    .command('create-named-token')
    .description('create a named token for a user (safer mode: only its digest is stored); the token is printed once')
    .argument('<username>')
    .requiredOption('--name <name>', 'a label for the token, 1 to 100 characters')
    .option('--expires-in <seconds>', 'seconds until it stops working (default: never)')
    .option('--prefix <prefix>', 'put before the token, for secret scanners (default: gth_)')
    .addOption(kit.databaseOption())
    .action(async (username: string, options: DatabaseOption & { name: string; expiresIn?: string; prefix?: string }) => {
      const name = options.name.trim()
      if (name.length === 0 || name.length > 100 || name.includes('\0')) throw kit.fail('--name must be 1 to 100 characters')
      const expires = parseExpiresIn(options.expiresIn)
      if ('errors' in expires) throw kit.fail(`--expires-in: ${expires.errors.join(' ')}`)
      await kit.withDatabase(options, async (database) => {
        const userId = await userIdOf(database, username, kit)
        const store = new KyselyNamedTokenStore({ db: database.db, ...prefixOption(options.prefix, kit) })
        const { key, info } = await store.create(userId, { name, expiresIn: expires.value })
        const until = info.expiresAt === null ? 'never expires' : `expires ${info.expiresAt.toISOString()}`
        print(`Generated named token ${key} for user ${username} (id ${info.id}, name ${JSON.stringify(name)}, ${until})`)
        print('It is shown only now: only its digest is stored.')
      })
    })

  program
    .command('list-named-tokens')
    .description("list a user's named tokens (never the tokens themselves)")
    .argument('<username>')
    .addOption(kit.databaseOption())
    .action(async (username: string, options: DatabaseOption) => {
      // Read only: opens nothing it would have to create, and migrates nothing.
      await kit.withReadOnlyDatabase(options, ['gatehouse_users', 'gatehouse_named_tokens'], async (database) => {
        const tokens = await new KyselyNamedTokenStore({ db: database.db }).list(await userIdOf(database, username, kit))
        if (tokens.length === 0) {
          print(`User ${username} has no named tokens`)
          return
        }
        print(['id', 'name', 'prefix', 'created', 'expires', 'last_used'].join('\t'))
        for (const t of tokens) {
          const when = (d: Date | null): string => (d === null ? '-' : d.toISOString())
          print([String(t.id), JSON.stringify(t.name), `${t.displayPrefix}…`, when(t.created), when(t.expiresAt), when(t.lastUsedAt)].join('\t'))
        }
      })
    })

  program
    .command('revoke-named-token')
    .description("revoke one of a user's named tokens by id, or all of them with --all (told to running servers through Redis)")
    .argument('<username>')
    .argument('[id]')
    .option('--all', 'revoke every named token of the user')
    .addOption(kit.databaseOption())
    .addOption(kit.redisOption())
    .addOption(kit.channelOption())
    .action(async (username: string, idText: string | undefined, options: DatabaseOption & InvalidationOptions & { all?: boolean }) => {
      if ((idText === undefined) === (options.all !== true)) throw kit.fail('give a token id or --all (not both)')
      const id = idText === undefined ? null : parseTokenId(idText)
      if (idText !== undefined && id === null) throw kit.fail(`${idText} is not a token id`)
      await kit.withInvalidation(options, (invalidation) =>
        kit.withDatabase(options, async (database) => {
          const userId = await userIdOf(database, username, kit)
          const store = new KyselyNamedTokenStore({ db: database.db, invalidation })
          if (id === null) {
            const count = await store.revokeAll(userId)
            print(`Revoked ${count} named token${count === 1 ? '' : 's'} of user ${username}`)
          } else if (await store.revoke(userId, id)) {
            print(`Revoked named token ${id} of user ${username}`)
          } else {
            throw kit.fail(`user ${username} has no named token ${id}`)
          }
        }),
      )
    })

  program
    .command('clear-expired-tokens')
    .description('delete expired named tokens (they are refused anyway; this keeps the table small)')
    .addOption(kit.databaseOption())
    .action(async (options: DatabaseOption) => {
      await kit.withDatabase(options, async (database) => {
        const removed = await new KyselyNamedTokenStore({ db: database.db }).clearExpired()
        print(`Deleted ${removed} expired named token${removed === 1 ? '' : 's'}`)
      })
    })

  program
    .command('migrate-tokens')
    .description(`move DRF-mode tokens into the safer mode: each key is kept as a digest (named "${MIGRATED_NAME}"), so clients keep their key; the DRF rows are deleted unless --keep`)
    .option('--keep', 'keep the DRF rows too (the keys then work in both modes)')
    .addOption(kit.databaseOption())
    .action(async (options: DatabaseOption & { keep?: boolean }) => {
      await kit.withDatabase(options, async (database) => {
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
        print(`Moved ${moved} DRF token${moved === 1 ? '' : 's'} into named tokens${kept}; ${present} already there`)
        if (options.keep !== true && moved + present > 0) {
          // The DRF rows are gone, but an obtain endpoint left as it was would store new plaintext keys.
          print('Now switch the token obtain endpoint (obtainAuthTokenView) to named tokens with namedTokenIssuer, or unmount it: as it is, it stores a new plaintext DRF key for every user it serves')
        }
      })
    })
}
