import { OpenApiBuilder, type OpenApiTarget } from './builder.js'
import type { DescribedRoute } from './policy-route.js'

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * Writes the operations of `routes` (views and routes guarded by `policies()`, as
 * `openApiDocument` describes them) and the components they use into an OpenAPI document
 * another tool is generating: what your adapter calls from its framework's own OpenAPI
 * generator (@fastify/swagger's per-route `swaggerTransform`, say), so that one document holds
 * both. `document.openapi` says the version: a `3.0.x` document gets 3.0 keywords
 * (`nullable`); missing `paths` and `components` are created. A document without an `openapi`
 * version (Swagger 2.0) is left as it is.
 *
 * @example
 * writeOpenApi(openapiObject, [{ path: url, view }])
 */
export function writeOpenApi(document: Record<string, unknown>, routes: readonly DescribedRoute[]): void {
  const version = document['openapi']
  if (typeof version !== 'string') return
  document['paths'] = isRecord(document['paths']) ? document['paths'] : {}
  document['components'] = isRecord(document['components']) ? document['components'] : {}
  const builder = new OpenApiBuilder(document as unknown as OpenApiTarget, { openapi30: version.startsWith('3.0') })
  for (const r of routes) {
    if ('view' in r) builder.addRoute(r.path, r.view)
    else builder.addPolicyRoute(r)
  }
}
