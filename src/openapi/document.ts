import type { JsonObject, JsonValue } from '../core/openapi-types.js'
import { OpenApiBuilder, type OpenApiTarget } from './builder.js'
import type { DescribedRoute } from './policy-route.js'

/** The Info Object's License Object: `name`, and an SPDX `identifier` or a `url`. */
export interface OpenApiLicense {
  readonly name: string
  readonly identifier?: string
  readonly url?: string
}

/** Options of `openApiDocument`. */
export interface OpenApiDocumentOptions {
  /** The Info Object: `title` and `version` are required by OpenAPI. */
  readonly info: { readonly title: string; readonly version: string; readonly description?: string; readonly license?: OpenApiLicense }
  /**
   * Server Objects (`[{ url: 'https://api.example.com/v1' }]`): where the paths are. Generated
   * clients take their base URL from the first. @default `[{ url: '/' }]` (`openApiView`: its mount prefix)
   */
  readonly servers?: readonly JsonObject[]
  /** The `openapi` version written. @default '3.1.0' */
  readonly openapi?: `3.1.${number}`
  /**
   * List `text/html` beside `application/json` in the answers of views that render HTML
   * (the browsable pages). Off by default, as in DRF's schemas: a generated client would
   * otherwise type every answer as JSON or text. @default false
   */
  readonly html?: boolean
}

/** An OpenAPI 3.1 document. */
export interface OpenApiDocument {
  readonly openapi: string
  readonly info: JsonObject
  readonly servers: readonly JsonObject[]
  readonly paths: Readonly<Record<string, Readonly<Record<string, JsonValue>>>>
  readonly components: JsonObject
}

/**
 * The OpenAPI 3.1 document of `routes`, for any framework: DRF-style views
 * (`route(path, view)`) and the app's own routes guarded by `policies()` (`openApiRoutes(app)`
 * finds both on Fastify, Express and Hono; `policyRoute` declares one on node:http). An
 * operation per handler, with its security requirements (from the view's schemes and
 * permissions), pagination parameters and paginated response (from its paginator), path
 * parameters, request body and the error responses its schemes, policies and body can give.
 * Every piece describes itself through an optional method of its own interface
 * (`AuthenticationScheme.openApiSecurity` / `openApiErrorStatuses`, `Paginator.openApiParameters`
 * / `openApiResponse`, `Permission.openApiAllowsAnonymous`, `Handler.openApi`), so custom ones
 * can too; a scheme that cannot is listed in the operation's `x-undescribed-authentication`.
 * Schemas marked with `namedSchema` become `components.schemas` entries referenced by `$ref`.
 *
 * @example
 * const doc = openApiDocument(routes, { info: { title: 'Books', version: '1.0.0' } })
 */
export function openApiDocument(routes: readonly DescribedRoute[], options: OpenApiDocumentOptions): OpenApiDocument {
  const target: OpenApiTarget = { paths: {}, components: { securitySchemes: {}, schemas: {} } }
  const builder = new OpenApiBuilder(target, { html: options.html ?? false })
  for (const r of routes) {
    if ('view' in r) builder.addRoute(r.path, r.view)
    else builder.addPolicyRoute(r)
  }
  const info: Record<string, JsonValue> = { title: options.info.title, version: options.info.version }
  if (options.info.description !== undefined) info['description'] = options.info.description
  const license = options.info.license
  if (license !== undefined) {
    info['license'] = {
      name: license.name,
      ...(license.identifier === undefined ? {} : { identifier: license.identifier }),
      ...(license.url === undefined ? {} : { url: license.url }),
    }
  }
  return {
    openapi: options.openapi ?? '3.1.0',
    info,
    servers: options.servers ?? [{ url: '/' }],
    paths: target.paths,
    components: target.components as JsonObject,
  }
}
