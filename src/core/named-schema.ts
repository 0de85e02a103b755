import type { JsonObject } from './openapi-types.js'

/** Where `namedSchema` keeps a schema's component name: a symbol key, so JSON never shows it. */
const SCHEMA_NAME: unique symbol = Symbol('gatehouse.schemaName')

type Named = JsonObject & { readonly [SCHEMA_NAME]?: string }

/**
 * `schema`, marked to be written once under `components.schemas[name]` and referenced with
 * `$ref` wherever an OpenAPI document uses it (an item schema, a request body, a response).
 * Generated clients then get a type of that name (`Article`) instead of an inline shape.
 * A paginated list of a named item names its envelope too (`ArticlePage`).
 *
 * @example
 * const article = namedSchema('Article', { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } })
 * listHandler({ source, serialize, itemSchema: article })
 */
export function namedSchema(name: string, schema: JsonObject): JsonObject {
  if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new TypeError(`namedSchema: "${name}" is not a valid component name (letters, digits, ".", "_", "-")`)
  const named: Named = { ...schema, [SCHEMA_NAME]: name }
  return Object.freeze(named)
}

/** The component name `namedSchema` gave `schema`, or `undefined`. */
export function schemaName(schema: JsonObject): string | undefined {
  return (schema as Named)[SCHEMA_NAME]
}
