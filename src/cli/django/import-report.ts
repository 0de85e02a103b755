/**
 * The last step of `drf-gatehouse import-django`: what it did (or would do), counted and told in
 * lines that name users but never anything secret (hashes, keys, URL passwords).
 */
import type { DialectName } from '../../kysely/database.js'

/** Counts of one kind of row. */
export interface ImportCounts {
  created: number
  updated: number
  /** Already in gatehouse and equal, or left as they were (without `update`). */
  unchanged: number
  skipped: number
}

/** What `importDjango` did (or, in a dry run, would have done). */
export interface ImportDjangoReport {
  readonly sourceDialect: DialectName
  readonly sourceUsers: number
  /** `null`: the Django database has no `authtoken_token` table. */
  readonly sourceTokens: number | null
  readonly users: ImportCounts
  readonly tokens: ImportCounts
  readonly dryRun: boolean
  /** Lines worth telling: skipped rows, renumbered users, hashes gatehouse cannot check. Nothing secret. */
  readonly notes: string[]
  /** gatehouse ids of present users whose flags, password or token `update` changed (caches should drop them). */
  readonly changedUserIds: number[]
  /** How many `onUserCreated` calls failed (each named in `notes`). */
  readonly hookFailures: number
}

/** A username as printed: plain when it is plain, else JSON-quoted (no control characters reach the terminal). */
export function shown(username: string): string {
  return /^[\w.@+-]+$/.test(username) ? username : JSON.stringify(username)
}

/** The first `max` names, comma-separated, and how many more. */
export function listed(names: readonly string[], max = 20): string {
  const head = names.slice(0, max).join(', ')
  return names.length > max ? `${head}, … (${names.length - max} more)` : head
}

function countsLine(what: string, counts: ImportCounts, dryRun: boolean): string {
  const verb = dryRun ? 'would be ' : ''
  return `${what}: ${counts.created} ${verb}created, ${counts.updated} ${verb}updated, ${counts.unchanged} unchanged, ${counts.skipped} skipped`
}

/** The lines `drf-gatehouse import-django` prints for a report. */
export function formatImportReport(report: ImportDjangoReport): string[] {
  const tokens = report.sourceTokens === null ? 'no authtoken_token table' : `${report.sourceTokens} token${report.sourceTokens === 1 ? '' : 's'}`
  const lines = [`Django database (${report.sourceDialect}): ${report.sourceUsers} user${report.sourceUsers === 1 ? '' : 's'}, ${tokens}`]
  lines.push(countsLine('Users', report.users, report.dryRun))
  if (report.sourceTokens !== null) lines.push(countsLine('Tokens', report.tokens, report.dryRun))
  lines.push(...report.notes)
  if (report.dryRun) lines.push('Dry run: nothing was written')
  return lines
}
