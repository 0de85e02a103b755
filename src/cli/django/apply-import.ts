/**
 * The writing step of `drf-gatehouse import-django`, inside the import's transaction: the user
 * plan (updates, then new users with their Django ids, then the renumbered ones), and the
 * token plan (replacements, then new tokens).
 */
import type { Kysely, Transaction } from 'kysely'
import type { DialectName } from '../../kysely/database.js'
import { syncSerial } from '../../kysely/migrations.js'
import type { AuthDatabase } from '../../kysely/schema.js'
import { shown } from './import-report.js'
import { passwordOf, staffOf, type UserPlan, type UserPlanOptions } from './plan-users.js'
import type { TokenPlan } from './plan-tokens.js'
import type { DjangoUser } from './read-django-database.js'

/** Rows per INSERT statement (well under SQLite's and PostgreSQL's parameter limits). */
const CHUNK = 200

/** What writing the users settled: every imported user's gatehouse id. */
export interface AppliedUsers {
  /** Django id (as text) → gatehouse id, present and new users alike. */
  readonly idOf: ReadonlyMap<string, number>
  /** gatehouse ids of the new users, in insertion order. */
  readonly createdIds: readonly number[]
  /** One line per renumbered user. */
  readonly notes: readonly string[]
}

export async function applyUserPlan(trx: Transaction<AuthDatabase>, dialect: DialectName, plan: UserPlan, options: UserPlanOptions): Promise<AppliedUsers> {
  for (const { id, changes } of plan.updates) await trx.updateTable('gatehouse_users').set(changes).where('id', '=', id).execute()
  const idOf = new Map(plan.presentIds)
  const notes: string[] = []
  const rowOf = (user: DjangoUser, withId: boolean): Record<string, unknown> => ({
    ...(withId ? { id: user.id } : {}),
    username: user.username,
    password: passwordOf(user),
    is_active: user.isActive ? 1 : 0,
    is_staff: staffOf(user, options) ? 1 : 0,
    is_superuser: user.isSuperuser ? 1 : 0,
    date_joined: (user.dateJoined ?? new Date()).toISOString(),
  })
  const loose = trx as unknown as Kysely<Record<string, Record<string, unknown>>>
  for (let i = 0; i < plan.keepIds.length; i += CHUNK) {
    await loose.insertInto('gatehouse_users').values(plan.keepIds.slice(i, i + CHUNK).map((u) => rowOf(u, true))).execute()
  }
  // Explicit ids went in: PostgreSQL's sequence must move past them before any new id is drawn.
  if (plan.keepIds.length > 0) await syncSerial(trx, dialect, 'gatehouse_users')
  for (const user of plan.keepIds) idOf.set(user.ref, user.id as number)
  for (const user of plan.renumbered) {
    const row = await loose.insertInto('gatehouse_users').values(rowOf(user, false)).returning('id').executeTakeFirstOrThrow()
    idOf.set(user.ref, Number(row['id']))
    notes.push(`user ${shown(user.username)}: Django id ${user.ref} is taken in gatehouse (or is not a number it can hold), imported as id ${String(row['id'])}`)
  }
  const createdIds = [...plan.keepIds, ...plan.renumbered].map((user) => idOf.get(user.ref) as number)
  return { idOf, createdIds, notes }
}

export async function applyTokenPlan(trx: Transaction<AuthDatabase>, plan: TokenPlan): Promise<void> {
  for (const { userId, row } of plan.replacements) {
    await trx.deleteFrom('gatehouse_tokens').where('user_id', '=', userId).execute()
    await trx.insertInto('gatehouse_tokens').values(row).execute()
  }
  for (let i = 0; i < plan.newTokens.length; i += CHUNK) {
    await trx.insertInto('gatehouse_tokens').values(plan.newTokens.slice(i, i + CHUNK)).execute()
  }
}
