import type { Command } from 'commander'
import type { Database } from '../../kysely/database.js'
import type { AuthDatabase } from '../../kysely/schema.js'
import { CliError, type CliIo } from '../cli-io.js'
import type { CommandKit } from '../command-kit.js'
import { missingTables, openCommandDatabase, openReadOnly, sqlLayer } from '../database-access.js'
import type { ImportDjangoReport } from '../import-django.js'
import { addConfigOption, addDatabaseOption, addInvalidationOptions, type ConfigOption, type DatabaseOption, type InvalidationOptions } from '../store-options.js'

interface ImportDjangoCommandOptions extends DatabaseOption, InvalidationOptions, ConfigOption {
  readonly from: string
  readonly update?: boolean
  readonly superusersAsStaff?: boolean
  readonly dryRun?: boolean
}

/**
 * `import-django --dry-run`: nothing is created or migrated. When gatehouse's user and token
 * tables are there, the import runs in a transaction that is rolled back; when they are not
 * (a new or missing database), it is counted against empty tables in a scratch in-memory
 * database instead, and the report says so.
 */
async function dryRunImport(
  options: DatabaseOption,
  io: CliIo,
  importInto: (database: Database<AuthDatabase>) => Promise<ImportDjangoReport>,
): Promise<ImportDjangoReport> {
  const TABLES = ['gatehouse_users', 'gatehouse_tokens']
  const probe = await openReadOnly(options, io)
  let ready = false
  try {
    ready = probe !== null && (await missingTables(probe, TABLES)).length === 0
  } finally {
    await probe?.close()
  }
  if (ready) {
    // Writes happen inside the import's transaction only, and are rolled back.
    const database = await openCommandDatabase(options, io)
    try {
      return await importInto(database)
    } finally {
      await database.close()
    }
  }
  const { authMigrations, migrate, openDatabase } = await sqlLayer()
  const scratch = await openDatabase<AuthDatabase>('sqlite::memory:')
  try {
    await migrate(scratch.db, authMigrations(scratch.dialect))
    const report = await importInto(scratch)
    return { ...report, notes: ["gatehouse's tables are not in --database yet: counted as if they were empty", ...report.notes] }
  } finally {
    await scratch.close()
  }
}

export function addImportDjangoCommand(program: Command, kit: CommandKit): void {
  const command = addDatabaseOption(
    program
      .command('import-django')
      .description("copy users (auth_user) and DRF tokens (authtoken_token) from a Django database into gatehouse's tables; running it again changes nothing")
      .requiredOption('--from <url>', 'the Django database, read only: sqlite:<path>, file:<path> or postgres://…'),
  )
    .option('--update', "refresh users already in gatehouse from Django (flags, date joined, token, and a password gatehouse never set); default: leave them as they are")
    .option('--superusers-as-staff', 'make Django superusers staff (default: is_staff as it is)')
    .option('--dry-run', 'print what the import would do and write nothing (no tables created either)')
  addConfigOption(addInvalidationOptions(command)).action(async (options: ImportDjangoCommandOptions) => {
    const hookFor = await kit.loadUserCreatedHook(options)
    const { formatImportReport, importDjango, readDjangoDatabase } = await kit.sql()
    // Everything is read before the target is opened: source and target may be one database.
    const source = await readDjangoDatabase(options.from)
    const importInto = (database: Database<AuthDatabase>): Promise<ImportDjangoReport> =>
      importDjango(database, source, {
        update: options.update === true,
        dryRun: options.dryRun === true,
        superusersAsStaff: options.superusersAsStaff === true,
        onUserCreated: hookFor(database),
      })
    if (options.dryRun === true) {
      for (const line of formatImportReport(await dryRunImport(options, kit.io, importInto))) kit.print(line)
      return
    }
    // Only --update changes what running servers may have cached.
    await kit.withChange(
      options,
      async (database, invalidation) => {
        const report = await importInto(database)
        for (const line of formatImportReport(report)) kit.print(line)
        for (const id of report.changedUserIds) await invalidation?.publish(id)
        if (report.hookFailures > 0) throw new CliError(`onUserCreated failed for ${report.hookFailures} imported user${report.hookFailures === 1 ? '' : 's'} (the import itself is committed)`)
      },
      options.update === true,
    )
  })
}
