import type { ApiView, Policies } from '../../index.js'
import { writeOpenApi } from '../../http/index.js'

/** What @fastify/swagger passes a route's `config.swaggerTransform` (the parts read here). */
export interface SwaggerTransformArgs {
  readonly url: string
  readonly schema?: unknown
  readonly route?: { readonly method?: string | readonly string[] }
  readonly openapiObject?: unknown
  readonly swaggerObject?: unknown
}

/** What the transform answers: @fastify/swagger's own description of the route is hidden. */
export interface SwaggerTransformResult {
  readonly schema: { readonly hide: true }
  readonly url: string
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The `config.swaggerTransform` of a view's Fastify route, read by @fastify/swagger (never
 * imported: the route only carries this function). In OpenAPI mode it writes the view's
 * operations (those of its handlers, as `openApiDocument` describes them) and their
 * components into the document being generated, and hides the route from @fastify/swagger's
 * own description, which would list every method Fastify routes and knows nothing of the
 * view's policies. The route has no `schema`, so Fastify neither validates nor serializes
 * anything: the view's answers are unchanged. In Swagger 2.0 mode the route is left out.
 */
export function swaggerTransformFor(view: ApiView): (args: SwaggerTransformArgs) => SwaggerTransformResult {
  return ({ url, openapiObject }) => {
    if (isRecord(openapiObject)) writeOpenApi(openapiObject, [{ path: url, view }])
    return { schema: { hide: true }, url }
  }
}

const SAFE = ['GET', 'HEAD', 'OPTIONS', 'TRACE']
const OPERATIONS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

/**
 * The `config.swaggerTransform` of a route the middleware-style `gatehouse` plugin guards:
 * @fastify/swagger keeps describing the route from its own schema, with the policies'
 * security requirements added (its schemes' components written into the document). The
 * added `security` is for the document only: a transform's schema never reaches Fastify's
 * validation. For a route of several methods, an unsafe one's requirements are used (the
 * session's CSRF header included).
 */
export function policiesSwaggerTransform(routePolicies: Policies): (args: SwaggerTransformArgs) => { readonly schema: Record<string, unknown>; readonly url: string } {
  return ({ url, schema, route, openapiObject }) => {
    const own = isRecord(schema) ? schema : {}
    if (!isRecord(openapiObject) || typeof openapiObject['openapi'] !== 'string') return { schema: own, url }
    const methods = route?.method === undefined ? ['GET'] : typeof route.method === 'string' ? [route.method] : [...route.method]
    const method = (methods.find((m) => !SAFE.includes(m.toUpperCase())) ?? methods[0] ?? 'GET').toUpperCase()
    // The operation as gatehouse describes it, written aside: only its security is kept, and the
    // security schemes it names are added to the document's components.
    const aside: Record<string, unknown> = { openapi: openapiObject['openapi'] }
    // A method OpenAPI has no operation for (HEAD, OPTIONS) is a safe one: described as GET.
    const operationMethod = OPERATIONS.find((m) => m === method) ?? 'GET'
    writeOpenApi(aside, [{ method: operationMethod, path: '/', policies: routePolicies, openApi: {} }])
    const operation = Object.values((aside['paths'] ?? {}) as Record<string, Record<string, { security?: unknown }>>)[0]
    const security = Object.values(operation ?? {})[0]?.security ?? []
    const schemes = ((aside['components'] ?? {}) as { securitySchemes?: Record<string, unknown> }).securitySchemes
    if (schemes !== undefined) {
      const components = isRecord(openapiObject['components']) ? openapiObject['components'] : (openapiObject['components'] = {})
      components['securitySchemes'] = { ...(isRecord(components['securitySchemes']) ? components['securitySchemes'] : {}), ...schemes }
    }
    return { schema: { ...own, security }, url }
  }
}
