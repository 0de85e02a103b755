/**
 * The notes of an import report, in the order `drf-gatehouse import-django` prints them:
 * renumbered users, tokens of present users, skipped rows, present users left as they were,
 * hashes gatehouse cannot check, unusable passwords, superusers.
 */
import { listed, shown } from './import-report.js'
import type { TokenPlan } from './plan-tokens.js'
import type { UserPlan } from './plan-users.js'
import type { DjangoUser } from './read-django-database.js'

/** Skipped rows named one by one, at most. */
const MAX_SKIPPED_LINES = 50

function countUsers(names: readonly string[]): string {
  return `${names.length} user${names.length === 1 ? '' : 's'}`
}

/** The lines about tokens of users gatehouse already had, and kept tokens. */
function tokenNotes(plan: TokenPlan, dryRun: boolean): string[] {
  const notes: string[] = []
  const would = dryRun ? 'would be ' : ''
  const { notAttached, attached, replaced, differing } = plan
  if (notAttached.length > 0) {
    notes.push(`${countUsers(notAttached)} already in gatehouse ${notAttached.length === 1 ? 'has a Django token' : 'have Django tokens'} that ${notAttached.length === 1 ? 'was' : 'were'} not attached (--update attaches ${notAttached.length === 1 ? 'it' : 'them'}): ${listed(notAttached.map(shown), Infinity)}`)
  }
  if (attached.length > 0) {
    notes.push(`Django tokens ${would}attached to ${countUsers(attached)} already in gatehouse (their accounts ${dryRun ? 'would' : 'now'} accept those keys): ${listed(attached.map(shown), Infinity)}`)
  }
  if (replaced.length > 0) {
    notes.push(`gatehouse tokens ${would}replaced by the Django ones for ${countUsers(replaced)}: ${listed(replaced.map(shown), Infinity)}`)
  }
  if (differing > 0) {
    notes.push(`${differing} user${differing === 1 ? ' has' : 's have'} a gatehouse token other than their Django one: kept (--update replaces it with Django's)`)
  }
  return notes
}

/** What an import tells besides its counts (hook failures come after, once they are known). */
export interface ImportNotesInput {
  readonly users: readonly DjangoUser[]
  readonly userPlan: UserPlan
  /** `null`: the Django database has no tokens table. */
  readonly tokenPlan: TokenPlan | null
  readonly renumberedNotes: readonly string[]
  readonly dryRun: boolean
  readonly superusersAsStaff: boolean
}

export function importNotes(input: ImportNotesInput): string[] {
  const { userPlan, tokenPlan } = input
  const notes = [...input.renumberedNotes]
  if (tokenPlan !== null) notes.push(...tokenNotes(tokenPlan, input.dryRun))
  const skippedLines = [...userPlan.skippedLines, ...(tokenPlan?.skippedLines ?? [])]
  notes.push(...skippedLines.slice(0, MAX_SKIPPED_LINES))
  if (skippedLines.length > MAX_SKIPPED_LINES) notes.push(`… and ${skippedLines.length - MAX_SKIPPED_LINES} more skipped rows`)
  const { differing, unusable } = userPlan
  if (differing > 0) {
    notes.push(`${differing} user${differing === 1 ? '' : 's'} already in gatehouse differ${differing === 1 ? 's' : ''} from Django (flags, date joined, or a password gatehouse never set): kept (--update refreshes them)`)
  }
  for (const [kind, names] of userPlan.uncheckable) {
    notes.push(
      `${names.length} user${names.length === 1 ? ' has a password hash' : 's have password hashes'} gatehouse cannot check (${kind}): copied as ${names.length === 1 ? 'it is' : 'they are'}; no password logs them in until one is set (drf-gatehouse changepassword <username>): ${listed(names.map(shown))}`,
    )
  }
  if (unusable > 0) notes.push(`${unusable} imported user${unusable === 1 ? ' has' : 's have'} no usable password, as in Django (token or other schemes only)`)
  const superusers = input.users.filter((u) => u.isSuperuser && !u.isStaff && userPlan.createdNames.has(u.username))
  if (superusers.length > 0 && !input.superusersAsStaff) {
    notes.push(`${superusers.length} Django superuser${superusers.length === 1 ? ' is' : 's are'} not staff and imported as not staff (is_superuser is kept; as in Django, they cannot use the admin pages; --superusers-as-staff makes them staff)`)
  }
  return notes
}
