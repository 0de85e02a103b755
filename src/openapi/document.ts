import type { JsonObject, JsonValue } from '../core/openapi-types.js'
import type { Route } from '../core/route.js'
import { OpenApiBuilder, type OpenApiTarget } from './builder.js'

/** Options of `openApiDocument`. */
export interface OpenApiDocumentOptions {
  /** The Info Object: `title` and `version` are required by OpenAPI. */
  readonly info: { readonly title: string; readonly version: string; readonly description?: string }
  /** Server Objects (`[{ url: 'https://api.example.com' }]`). @default none: paths are relative to the document's host */
  readonly servers?: readonly JsonObject[]
  /** The `openapi` version written. @default '3.1.0' */
  readonly openapi?: `3.1.${number}`
}

/** An OpenAPI 3.1 document. */
export interface OpenApiDocument {
  readonly openapi: string
  readonly info: JsonObject
  readonly servers?: readonly JsonObject[]
  readonly paths: Readonly<Record<string, Readonly<Record<string, JsonValue>>>>
  readonly components: JsonObject
}

/**
 * The OpenAPI 3.1 document of `routes`, for any framework: an operation per handler, with
 * its security requirements (from the view's schemes and permissions), pagination
 * parameters and paginated response (from its paginator), path parameters, request body
 * and error responses. Every piece describes itself through an optional method of its own
 * interface (`AuthenticationScheme.openApiSecurity`, `Paginator.openApiParameters` /
 * `openApiResponse`, `Permission.openApiAllowsAnonymous`, `Handler.openApi`), so custom
 * ones can too; a scheme that cannot is listed in the operation's
 * `x-undescribed-authentication`.
 *
 * @example
 * const doc = openApiDocument(routes, { info: { title: 'Books', version: '1.0.0' } })
 */
export function openApiDocument(routes: readonly Route[], options: OpenApiDocumentOptions): OpenApiDocument {
  const target: OpenApiTarget = { paths: {}, components: { securitySchemes: {}, schemas: {} } }
  const builder = new OpenApiBuilder(target)
  for (const r of routes) builder.addRoute(r.path, r.view)
  const info: Record<string, JsonValue> = { title: options.info.title, version: options.info.version }
  if (options.info.description !== undefined) info['description'] = options.info.description
  return {
    openapi: options.openapi ?? '3.1.0',
    info,
    ...(options.servers === undefined ? {} : { servers: options.servers }),
    paths: target.paths,
    components: target.components as JsonObject,
  }
}
