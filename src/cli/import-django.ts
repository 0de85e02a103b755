/**
 * `drf-gatehouse import-django`: copies Django's users (`auth_user`) and DRF's tokens
 * (`authtoken_token`) into gatehouse's own tables, so an API moved off Django keeps its
 * accounts, passwords (Django's PBKDF2 hashes verify, and are rehashed at the first login)
 * and token keys. Idempotent: a second run writes nothing.
 *
 * In steps (`django/`): read Django's tables (`readDjangoDatabase`, before the target is
 * opened, so source and target may be the same database); plan users and tokens against
 * gatehouse's rows; apply the plans in one transaction; report. Nothing secret (hashes,
 * keys, URL passwords) is ever printed.
 */
import type { Transaction } from 'kysely'
import type { Database } from '../kysely/database.js'
import { KyselyUserStore } from '../kysely/kysely-user-store.js'
import type { AuthDatabase } from '../kysely/schema.js'
import { runUserCreatedHook, type UserCreatedHook } from '../stores/user-created-hook.js'
import { applyTokenPlan, applyUserPlan } from './django/apply-import.js'
import { importNotes } from './django/import-notes.js'
import { shown, type ImportDjangoReport } from './django/import-report.js'
import { planTokens, type TokenPlan } from './django/plan-tokens.js'
import { planUsers, type UserPlan } from './django/plan-users.js'
import type { DjangoData } from './django/read-django-database.js'

export { DjangoImportError, parseDjangoDate, readDjangoDatabase, type DjangoData, type DjangoToken, type DjangoUser } from './django/read-django-database.js'
export { formatImportReport, type ImportCounts, type ImportDjangoReport } from './django/import-report.js'

/** How `importDjango` treats users and tokens already in gatehouse's tables. */
export interface ImportDjangoOptions {
  /**
   * Refresh users already in gatehouse (matched by username) from Django: active and staff
   * flags, date joined, token key (attached when they have none: each such user is named in
   * the report, since the key then logs in to their account), and the password *only* while gatehouse's copy is still
   * not an scrypt hash (a password set or rehashed by gatehouse is never replaced).
   * @default false: such users and their tokens are left as they are.
   */
  readonly update?: boolean
  /** Everything is done in the transaction, then rolled back. @default false */
  readonly dryRun?: boolean
  /**
   * Make Django superusers staff too. `is_superuser` is copied either way, but a superuser
   * who is not staff cannot use the admin pages (as in Django). @default false: `is_staff` as it is
   */
  readonly superusersAsStaff?: boolean
  /**
   * Called for every user the import created, once the import is committed (never in a dry
   * run), as a store's `onUserCreated`. A failure is reported (`hookFailures`, a note) and the
   * other users' calls still happen. @default none
   */
  readonly onUserCreated?: UserCreatedHook | undefined
}

/** Rolls the transaction back at the end of a dry run. */
class DryRunRollback extends Error {}

/** Hook failures named one by one, at most. */
const MAX_HOOK_FAILURE_LINES = 50

/** What the transaction planned and wrote. */
interface Imported {
  readonly userPlan: UserPlan
  readonly tokenPlan: TokenPlan | null
  readonly createdIds: readonly number[]
  readonly notes: string[]
}

/** Plans and applies users, then tokens, in `trx`. */
async function importInto(trx: Transaction<AuthDatabase>, database: Database<AuthDatabase>, source: DjangoData, options: ImportDjangoOptions): Promise<Imported> {
  const presentUsers = await trx.selectFrom('gatehouse_users').select(['id', 'username', 'password', 'is_active', 'is_staff', 'is_superuser', 'date_joined']).execute()
  const userPlan = planUsers(source.users, presentUsers, options)
  const applied = await applyUserPlan(trx, database.dialect, userPlan, options)
  let tokenPlan: TokenPlan | null = null
  if (source.tokens !== null) {
    const presentTokens = await trx.selectFrom('gatehouse_tokens').select(['key', 'user_id']).execute()
    tokenPlan = planTokens(source.tokens, presentTokens, { idOf: applied.idOf, existingNames: userPlan.existingNames }, options.update === true)
    await applyTokenPlan(trx, tokenPlan)
  }
  const notes = importNotes({
    users: source.users,
    userPlan,
    tokenPlan,
    renumberedNotes: applied.notes,
    dryRun: options.dryRun === true,
    superusersAsStaff: options.superusersAsStaff === true,
  })
  return { userPlan, tokenPlan, createdIds: applied.createdIds, notes }
}

/** Calls the hook for each created user after the commit, as a store's `create` does; returns how many calls failed (each named in `notes`). */
async function runHooks(database: Database<AuthDatabase>, hook: UserCreatedHook, createdIds: readonly number[], notes: string[]): Promise<number> {
  // After the commit: the hook sees the rows (and may write its own).
  const store = new KyselyUserStore({ db: database.db })
  let failures = 0
  for (const id of createdIds) {
    const user = await store.findById(id)
    if (user === null) continue
    try {
      await runUserCreatedHook(hook, user)
    } catch (error) {
      failures++
      if (failures <= MAX_HOOK_FAILURE_LINES) notes.push(`onUserCreated failed for user ${shown(user.username)}: ${error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error)}`)
    }
  }
  if (failures > MAX_HOOK_FAILURE_LINES) notes.push(`… and ${failures - MAX_HOOK_FAILURE_LINES} more onUserCreated failures`)
  return failures
}

/**
 * Writes `source` into gatehouse's tables of `database` (migrated), in one transaction:
 * new users keep Django's id when it is free, their password hash as it is (an empty one
 * becomes unusable, `!`), active and staff flags, date joined; tokens keep their key.
 * Users already present (same username) are left alone unless `options.update`, and so are
 * their tokens: a Django token is attached to (or replaces the token of) a user gatehouse
 * already had only with `options.update`, and every such user is named in the notes.
 */
export async function importDjango(database: Database<AuthDatabase>, source: DjangoData, options: ImportDjangoOptions = {}): Promise<ImportDjangoReport> {
  const dryRun = options.dryRun === true
  let imported: Imported | undefined
  try {
    await database.db.transaction().execute(async (trx) => {
      imported = await importInto(trx, database, source, options)
      if (dryRun) throw new DryRunRollback()
    })
  } catch (error) {
    if (!(error instanceof DryRunRollback)) throw error
  }
  // The transaction either ran importInto to the end or threw past this point.
  const { userPlan, tokenPlan, createdIds, notes } = imported as Imported
  const hookFailures = options.onUserCreated !== undefined && !dryRun ? await runHooks(database, options.onUserCreated, createdIds, notes) : 0
  return {
    sourceDialect: source.dialect,
    sourceUsers: source.users.length,
    sourceTokens: source.tokens === null ? null : source.tokens.length,
    users: userPlan.counts,
    tokens: tokenPlan?.counts ?? { created: 0, updated: 0, unchanged: 0, skipped: 0 },
    dryRun,
    notes,
    changedUserIds: dryRun ? [] : [...new Set([...userPlan.updates.map((u) => u.id), ...(tokenPlan?.changedUserIds ?? [])])],
    hookFailures,
  }
}
