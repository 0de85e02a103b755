/**
 * The plan for Django's users in `drf-gatehouse import-django`, decided before anything is
 * written: which users are new (keeping Django's id when it is free, else renumbered),
 * which present users (same username) change and how, which rows are skipped and why.
 */
import { isUsableHash } from '../../crypto/passwords.js'
import { toDate } from '../../kysely/schema.js'
import type { DjangoUser } from './read-django-database.js'
import type { ImportCounts } from './import-report.js'

const MAX_USERNAME = 150
const MAX_PASSWORD = 255

/** A row of `gatehouse_users` before the import. */
export interface PresentUser {
  id: number
  username: string
  password: string
  is_active: number
  is_staff: number
  is_superuser: number
  date_joined: Date | string
}

/** How users already in gatehouse and Django superusers are treated (`ImportDjangoOptions`). */
export interface UserPlanOptions {
  readonly update?: boolean
  readonly superusersAsStaff?: boolean
}

/** The columns of a present user that `--update` rewrites. */
export type UserChanges = Partial<{ password: string; is_active: number; is_staff: number; is_superuser: number; date_joined: string }>

/** What the import does with Django's users. */
export interface UserPlan {
  /** `created` is the new users (`keepIds` and `renumbered`); `updated` the `updates`. */
  readonly counts: ImportCounts
  /** New users whose Django id is free in gatehouse: inserted with it. */
  readonly keepIds: readonly DjangoUser[]
  /** New users whose id is taken (or no number gatehouse can hold): gatehouse picks one. */
  readonly renumbered: readonly DjangoUser[]
  /** Present users rewritten (only with `update`). */
  readonly updates: readonly { readonly id: number; readonly changes: UserChanges }[]
  /** Django id (as text) → gatehouse id, for the present users. */
  readonly presentIds: ReadonlyMap<string, number>
  /** gatehouse id → username of the users gatehouse had before the import. */
  readonly existingNames: ReadonlyMap<number, string>
  /** One line per skipped row. */
  readonly skippedLines: readonly string[]
  /** Usernames of the new users. */
  readonly createdNames: ReadonlySet<string>
  /** Hasher → usernames of new users whose hash gatehouse cannot check. */
  readonly uncheckable: ReadonlyMap<string, readonly string[]>
  /** New users with no usable password. */
  readonly unusable: number
  /** Present users that differ from Django and were left as they are (no `update`). */
  readonly differing: number
}

/** The hasher of a Django hash, for reporting (never any part of the hash itself). */
function hasher(password: string): string {
  if (password === '' || password.startsWith('!')) return 'unusable'
  const name = password.slice(0, password.indexOf('$'))
  return /^[a-z0-9_]{1,40}$/.test(name) ? name : 'unknown'
}

/** Why a Django user cannot go into gatehouse's table as it is, or `null`. */
function unfit(user: DjangoUser): string | null {
  // Lengths in characters (code points), as varchar counts them.
  if (user.username === '' || [...user.username].length > MAX_USERNAME || user.username.includes('\0')) {
    return `its username is empty, longer than ${MAX_USERNAME} characters or contains NUL`
  }
  if ([...user.password].length > MAX_PASSWORD || user.password.includes('\0')) return `its password field is longer than ${MAX_PASSWORD} characters or contains NUL`
  return null
}

export function staffOf(user: DjangoUser, options: UserPlanOptions): boolean {
  return user.isStaff || (options.superusersAsStaff === true && user.isSuperuser)
}

/** The hash gatehouse keeps for a Django user: an empty one becomes unusable (`!`). */
export function passwordOf(user: DjangoUser): string {
  return user.password === '' ? '!' : user.password
}

/** What a present user would change to match Django; a password gatehouse set or rehashed (scrypt) is newer, never replaced. */
function changesOf(existing: PresentUser, user: DjangoUser, options: UserPlanOptions): UserChanges {
  const changes: UserChanges = {}
  if (Number(existing.is_active) !== (user.isActive ? 1 : 0)) changes.is_active = user.isActive ? 1 : 0
  if (Number(existing.is_staff) !== (staffOf(user, options) ? 1 : 0)) changes.is_staff = staffOf(user, options) ? 1 : 0
  if (Number(existing.is_superuser) !== (user.isSuperuser ? 1 : 0)) changes.is_superuser = user.isSuperuser ? 1 : 0
  if (user.dateJoined !== null && toDate(existing.date_joined).getTime() !== user.dateJoined.getTime()) changes.date_joined = user.dateJoined.toISOString()
  if (!existing.password.startsWith('scrypt$') && existing.password !== passwordOf(user)) changes.password = passwordOf(user)
  return changes
}

/** Plans Django's `users` against gatehouse's `present` ones; writes nothing. */
export function planUsers(users: readonly DjangoUser[], present: readonly PresentUser[], options: UserPlanOptions): UserPlan {
  const counts: ImportCounts = { created: 0, updated: 0, unchanged: 0, skipped: 0 }
  const byName = new Map(present.map((row) => [row.username, row]))
  const takenIds = new Set(present.map((row) => Number(row.id)))
  const presentIds = new Map<string, number>()
  const existingNames = new Map<number, string>()
  const seen = new Set<string>()
  const skippedLines: string[] = []
  const keepIds: DjangoUser[] = []
  const renumbered: DjangoUser[] = []
  const updates: { id: number; changes: UserChanges }[] = []
  const createdNames = new Set<string>()
  const uncheckable = new Map<string, string[]>()
  let unusable = 0
  let differing = 0
  for (const user of users) {
    const why = unfit(user) ?? (seen.has(user.username) ? 'its username appears twice' : null)
    if (why !== null) {
      counts.skipped++
      skippedLines.push(`skipped Django user id ${user.ref}: ${why}`)
      continue
    }
    seen.add(user.username)
    const existing = byName.get(user.username)
    if (existing === undefined) {
      if (user.id !== null && !takenIds.has(user.id)) {
        keepIds.push(user)
        takenIds.add(user.id)
      } else renumbered.push(user)
      createdNames.add(user.username)
      const kind = hasher(user.password)
      if (kind === 'unusable') unusable++
      else if (!isUsableHash(user.password)) uncheckable.set(kind, [...(uncheckable.get(kind) ?? []), user.username])
      continue
    }
    const id = Number(existing.id)
    presentIds.set(user.ref, id)
    existingNames.set(id, user.username)
    const changes = changesOf(existing, user, options)
    if (Object.keys(changes).length === 0) {
      counts.unchanged++
    } else if (options.update === true) {
      updates.push({ id, changes })
      counts.updated++
    } else {
      counts.unchanged++
      differing++
    }
  }
  counts.created = keepIds.length + renumbered.length
  return { counts, keepIds, renumbered, updates, presentIds, existingNames, skippedLines, createdNames, uncheckable, unusable, differing }
}
