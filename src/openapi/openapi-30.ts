import type { JsonValue } from '../core/openapi-types.js'

/**
 * Rewrites 3.1 schema keywords the descriptions use into OpenAPI 3.0's, for documents written
 * as 3.0 (@fastify/swagger's default): a type list with `'null'` (`type: ['string', 'null']`)
 * becomes `type: 'string', nullable: true`, and a list of several types (3.0 has none) an
 * `anyOf` of one type each.
 */
export function toOpenApi30(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(toOpenApi30)
  if (typeof value !== 'object' || value === null) return value
  const out: Record<string, JsonValue> = {}
  for (const [key, child] of Object.entries(value as Record<string, JsonValue>)) {
    if (key === 'type' && Array.isArray(child)) {
      const types = child.filter((t) => t !== 'null')
      if (types.length !== child.length) out['nullable'] = true
      if (types.length === 1) out['type'] = types[0] as JsonValue
      else out['anyOf'] = types.map((t) => ({ type: t }))
    } else {
      out[key] = toOpenApi30(child)
    }
  }
  return out
}
