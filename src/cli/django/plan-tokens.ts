/**
 * The plan for DRF's tokens in `drf-gatehouse import-django`, decided once the users are in
 * (their gatehouse ids known): which keys are added, which replace a gatehouse token
 * (`--update` only), which are skipped and why, and which present users are concerned.
 */
import { tokenRow } from '../../kysely/kysely-token-store.js'
import type { ImportCounts } from './import-report.js'
import type { DjangoToken } from './read-django-database.js'

const MAX_KEY = 40

/** A row of `gatehouse_tokens` before the import. */
export interface PresentToken {
  readonly key: string
  readonly user_id: number | string
}

/** A `gatehouse_tokens` row to insert. */
export type TokenRow = ReturnType<typeof tokenRow<number>>

/** What the import does with DRF's tokens. */
export interface TokenPlan {
  readonly counts: ImportCounts
  /** Tokens for users who have none: inserted. */
  readonly newTokens: readonly TokenRow[]
  /** A user's gatehouse token replaced by their Django one (`update` only), in order. */
  readonly replacements: readonly { readonly userId: number; readonly row: TokenRow }[]
  /** gatehouse ids of present users whose token changed. */
  readonly changedUserIds: readonly number[]
  readonly skippedLines: readonly string[]
  /** Present users with a Django token not attached (no `update`). */
  readonly notAttached: readonly string[]
  /** Present users given their Django token. */
  readonly attached: readonly string[]
  /** Users whose gatehouse token the Django one replaced. */
  readonly replaced: readonly string[]
  /** Users whose gatehouse token differs from their Django one and was kept (no `update`). */
  readonly differing: number
}

/** The users the tokens may belong to: Django id (as text) → gatehouse id, and the names of the users gatehouse already had. */
export interface TokenOwners {
  readonly idOf: ReadonlyMap<string, number>
  readonly existingNames: ReadonlyMap<number, string>
}

/** Plans Django's `tokens` against gatehouse's `present` ones; writes nothing. */
export function planTokens(tokens: readonly DjangoToken[], present: readonly PresentToken[], owners: TokenOwners, update: boolean): TokenPlan {
  const counts: ImportCounts = { created: 0, updated: 0, unchanged: 0, skipped: 0 }
  const tokenOfUser = new Map<number, string>()
  const userOfKey = new Map<string, number>()
  for (const row of present) {
    tokenOfUser.set(Number(row.user_id), row.key)
    userOfKey.set(row.key, Number(row.user_id))
  }
  const skippedLines: string[] = []
  const newTokens: TokenRow[] = []
  const replacements: { userId: number; row: TokenRow }[] = []
  const changedUserIds: number[] = []
  // Tokens of users gatehouse already had: attached or replaced only with --update, and always named.
  const notAttached: string[] = []
  const attached: string[] = []
  const replaced: string[] = []
  let differing = 0
  for (const token of tokens) {
    const userId = owners.idOf.get(token.userRef)
    if (userId === undefined) {
      counts.skipped++
      skippedLines.push(`skipped the token of Django user id ${token.userRef}: that user was not imported`)
      continue
    }
    if (token.key === '' || token.key.length > MAX_KEY || token.key.includes('\0')) {
      counts.skipped++
      skippedLines.push(`skipped the token of Django user id ${token.userRef}: its key is empty, longer than ${MAX_KEY} characters or contains NUL`)
      continue
    }
    const current = tokenOfUser.get(userId)
    if (current === token.key) {
      counts.unchanged++
      continue
    }
    const owner = userOfKey.get(token.key)
    if (owner !== undefined && owner !== userId) {
      counts.skipped++
      skippedLines.push(`skipped the token of Django user id ${token.userRef}: gatehouse has the same key for another user`)
      continue
    }
    const row = tokenRow(token.key, userId, token.created ?? new Date())
    const existingName = owners.existingNames.get(userId)
    if (current === undefined && existingName !== undefined && !update) {
      // A key that would log in to an account gatehouse already had: never without --update.
      counts.unchanged++
      notAttached.push(existingName)
    } else if (current === undefined) {
      if (existingName !== undefined) {
        attached.push(existingName)
        changedUserIds.push(userId)
      }
      newTokens.push(row)
      tokenOfUser.set(userId, token.key)
      userOfKey.set(token.key, userId)
    } else if (update) {
      replacements.push({ userId, row })
      userOfKey.delete(current)
      tokenOfUser.set(userId, token.key)
      userOfKey.set(token.key, userId)
      counts.updated++
      changedUserIds.push(userId)
      replaced.push(existingName ?? String(userId))
    } else {
      counts.unchanged++
      differing++
    }
  }
  counts.created = newTokens.length
  return { counts, newTokens, replacements, changedUserIds, skippedLines, notAttached, attached, replaced, differing }
}
