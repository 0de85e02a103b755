import type { Command } from 'commander'
import type { Kysely } from 'kysely'
import type { JwtBlacklistDatabase } from '../../kysely/kysely-jwt-blacklist-store.js'
import type { CommandKit } from '../command-kit.js'
import { addDatabaseOption, type DatabaseOption } from '../store-options.js'

export function addFlushExpiredTokensCommand(program: Command, kit: CommandKit): void {
  addDatabaseOption(
    program.command('flush-expired-tokens').description("delete expired JWT refresh tokens from the blacklist table (simplejwt's flushexpiredtokens)"),
  ).action(async (options: DatabaseOption) => {
    await kit.withDatabase(options, async (database) => {
      const { jwtBlacklistMigrations, KyselyJwtBlacklistStore, migrate } = await kit.sql()
      await migrate(database.db, jwtBlacklistMigrations(database.dialect), 'gatehouse_jwt_migrations')
      const db = database.db as unknown as Kysely<JwtBlacklistDatabase>
      const removed = await new KyselyJwtBlacklistStore({ db }).flushExpired(new Date())
      kit.print(`Deleted ${removed} expired token${removed === 1 ? '' : 's'}`)
    })
  })
}
