import type { Expression, OperationNode } from 'kysely'

/** The name a FROM or JOIN item is referred to by: its alias, else its (schema-qualified) table name. */
function visibleName(node: OperationNode): string | null {
  if (node.kind === 'AliasNode') {
    const alias = (node as unknown as { alias: OperationNode }).alias
    return alias.kind === 'IdentifierNode' ? (alias as unknown as { name: string }).name : null
  }
  if (node.kind !== 'TableNode') return null
  const table = (node as unknown as { table: { schema?: { name: string }; identifier: { name: string } } }).table
  return table.schema === undefined ? table.identifier.name : `${table.schema.name}.${table.identifier.name}`
}

/**
 * The tables (or their aliases) a select query's FROM and JOINs make visible, as a qualified
 * column reference names them (`articles` of `articles.title`). `null` when the query is not a
 * plain select over tables (a sub-select in FROM, a raw expression): nothing can be assumed of it.
 */
export function visibleTables(query: Expression<unknown>): ReadonlySet<string> | null {
  const node = query.toOperationNode() as OperationNode & { from?: { froms: readonly OperationNode[] }; joins?: readonly { table: OperationNode }[] }
  if (node.kind !== 'SelectQueryNode' || node.from === undefined) return null
  const names = new Set<string>()
  for (const item of [...node.from.froms, ...(node.joins ?? []).map((j) => j.table)]) {
    const name = visibleName(item)
    if (name === null) return null
    names.add(name)
  }
  return names
}

/** The table part of a qualified column reference (`articles` of `articles.title`, `s.t` of `s.t.c`); `null` when unqualified. */
export function qualifierOf(ref: string): string | null {
  const dot = ref.lastIndexOf('.')
  return dot <= 0 ? null : ref.slice(0, dot)
}

/** Whether every column of `refs` is qualified by one of `query`'s visible tables (see `visibleTables`). */
export function resolvesIn(query: Expression<unknown>, refs: readonly string[]): boolean {
  const tables = visibleTables(query)
  if (tables === null) return false
  return refs.every((ref) => {
    const table = qualifierOf(ref)
    return table !== null && tables.has(table)
  })
}
