import { schemeName } from '../core/authentication-scheme.js'
import { DEFAULT_PARSED_MEDIA_TYPES } from '../core/request/body-parser.js'
import { reasonPhrase } from '../core/html/browsable-page.js'
import { namedSchema, schemaName } from '../core/named-schema.js'
import type { JsonObject, JsonValue, OperationDescription } from '../core/openapi-types.js'
import type { Paginator } from '../core/paginator.js'
import type { Settings } from '../core/settings.js'
import { HANDLER_METHODS, type ApiView, type HandlerMethod } from '../core/view.js'
import type { PolicyRoute } from './policy-route.js'
import { toOpenApi30 } from './openapi-30.js'
import {
  ERROR_SCHEMA,
  ERROR_SCHEMA_NAME,
  METHOD_NOT_ALLOWED,
  VALIDATION_ERROR_SCHEMA,
  VALIDATION_ERROR_SCHEMA_NAME,
  errorResponse,
} from './error-responses.js'

/**
 * What an operation is described from besides its handler's own description: a view, or
 * an own route's `policies()`. One description path for both styles; they differ only in
 * what a view adds (format negotiation, 405) and in the bodies each reads.
 */
interface OperationSource {
  readonly name: string | undefined
  readonly description: string | undefined
  /** The resolved settings: schemes, permissions, throttles, paginator. */
  readonly settings: Settings
  /**
   * A DRF-style view: it negotiates a format (`?format=` unknown: 404; `Accept`: 406), answers
   * 405 for a method it lacks, and parses JSON, form and multipart bodies. An own route answers
   * JSON, its body read by the app (JSON), and its framework answers unknown methods.
   */
  readonly view: boolean
  /** List `text/html` beside JSON (a view rendering HTML, when the document asks). */
  readonly html: boolean
}

/** The media types an own route's body is described with: the app reads it, as JSON. */
const OWN_ROUTE_MEDIA_TYPES: readonly string[] = ['application/json']

/** A mutable OpenAPI document the builder writes into (a fresh one, or @fastify/swagger's). */
export interface OpenApiTarget {
  paths: Record<string, Record<string, JsonValue>>
  components: {
    securitySchemes?: Record<string, JsonValue>
    schemas?: Record<string, JsonValue>
    responses?: Record<string, JsonValue>
    [key: string]: JsonValue | undefined
  }
}

export interface OpenApiBuilderOptions {
  /** List `text/html` beside JSON in the answers of views that render HTML. @default false */
  readonly html?: boolean
  /** Write OpenAPI 3.0 keywords (`nullable`), for a 3.0 target such as @fastify/swagger's default. @default false */
  readonly openapi30?: boolean
}

/** JSON text with object keys sorted, so two equal descriptions compare equal. */
function canonical(value: JsonValue | undefined): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, JsonValue>)[k])}`)
    return `{${entries.join(',')}}`
  }
  return JSON.stringify(value ?? null)
}

/** `/books/:id/` → `/books/{id}/` and the parameter names. */
export function openApiPath(path: string): { readonly path: string; readonly params: readonly string[] } {
  const params: string[] = []
  const converted = path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment
      params.push(segment.slice(1))
      return `{${segment.slice(1)}}`
    })
    .join('/')
  return { path: converted, params }
}

/** `'Article List'` → `'ArticleList'`; `''` for a name without letters or digits. */
function pascal(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '')
    .map((w) => w[0]?.toUpperCase() + w.slice(1))
    .join('')
}

/** DRF's action names: `list`, `retrieve`, `create`, `update`, `partialUpdate`, `destroy`. */
function action(method: HandlerMethod, isList: boolean): string {
  switch (method) {
    case 'GET':
      return isList ? 'list' : 'retrieve'
    case 'POST':
      return 'create'
    case 'PUT':
      return 'update'
    case 'PATCH':
      return 'partialUpdate'
    case 'DELETE':
      return 'destroy'
  }
}

/** The first path segment that is not `api` or a parameter: DRF's default tag. */
function tagOf(path: string): string | null {
  const segments = path.split('/').filter((s) => s !== '' && !s.startsWith(':') && !s.startsWith('{'))
  const first = segments[0] === 'api' && segments.length > 1 ? segments[1] : segments[0]
  return first ?? null
}

/** What a view that renders HTML answers `Accept: text/html` with: the same status, on a page. */
const HTML_PAGE: JsonObject = { schema: { type: 'string', description: 'The browsable page: the status line, headers and JSON of this answer.' } }

/**
 * Adds `text/html` beside `application/json` in every answer with a body: a view that renders
 * HTML answers a client asking for it with the page showing the same JSON, errors included.
 */
function withHtmlPages(responses: Readonly<Record<string, JsonValue>>): JsonObject {
  const out: Record<string, JsonValue> = {}
  for (const [status, response] of Object.entries(responses)) {
    const content = (response as JsonObject)['content'] as JsonObject | undefined
    out[status] = content === undefined ? response : { ...(response as JsonObject), content: { ...content, 'text/html': HTML_PAGE } }
  }
  return out
}

/**
 * Describes gatehouse views into an OpenAPI 3.1 document: one operation per handler, its
 * security from the view's schemes and permissions, its pagination from the paginator,
 * its error answers from its policies. Components (security schemes, the error schemas)
 * are added once; a name taken by a different object gets a suffix (`tokenAuth_2`).
 */
export class OpenApiBuilder {
  private readonly target: OpenApiTarget
  private readonly html: boolean
  /** How a description is written into the target: as is (3.1), or in 3.0's keywords. */
  private readonly written: (value: JsonValue) => JsonValue
  private readonly operationIds = new Set<string>()

  constructor(target: OpenApiTarget, options: OpenApiBuilderOptions = {}) {
    this.target = target
    this.html = options.html ?? false
    this.written = options.openapi30 === true ? toOpenApi30 : (value) => value
    for (const item of Object.values(target.paths)) {
      for (const op of Object.values(item)) {
        const id = typeof op === 'object' && op !== null && !Array.isArray(op) ? (op as JsonObject)['operationId'] : undefined
        if (typeof id === 'string') this.operationIds.add(id)
      }
    }
  }

  /** Adds `value` under `components[kind][name]` (or a suffixed name when taken by another value); returns the name used. */
  private component(kind: 'securitySchemes' | 'schemas' | 'responses', name: string, description: JsonObject): string {
    const map = (this.target.components[kind] ??= {})
    const value = this.written(description)
    for (let i = 1; ; i++) {
      const candidate = i === 1 ? name : `${name}_${i}`
      const existing = map[candidate]
      if (existing === undefined) {
        map[candidate] = value
        return candidate
      }
      if (canonical(existing) === canonical(value)) return candidate
    }
  }

  /**
   * `value` with every schema marked by `namedSchema` (at any depth) written once under
   * `components.schemas` and replaced by its `$ref`.
   */
  private refs(value: JsonValue): JsonValue {
    if (Array.isArray(value)) return value.map((v) => this.refs(v))
    if (typeof value !== 'object' || value === null) return value
    const object = value as JsonObject
    const out: Record<string, JsonValue> = {}
    for (const [key, child] of Object.entries(object)) out[key] = this.refs(child)
    const name = schemaName(object)
    return name === undefined ? out : { $ref: `#/components/schemas/${this.component('schemas', name, out)}` }
  }

  private uniqueOperationId(base: string): string {
    let id = base
    for (let i = 2; this.operationIds.has(id); i++) id = `${base}${i}`
    this.operationIds.add(id)
    return id
  }

  /** Describes `view` at `path` (`:name` parameters, as routes declare them). */
  addRoute(path: string, view: ApiView): void {
    const declared = view.declared
    const source: OperationSource = { name: declared.name, description: declared.description, settings: view.settings, view: true, html: this.html && view.formats.includes('html') }
    const operations: Partial<Record<HandlerMethod, OperationDescription>> = {}
    for (const method of HANDLER_METHODS) {
      const handler = declared.handlers[method]
      if (handler !== undefined) operations[method] = handler.openApi ?? {}
    }
    this.addOperations(path, source, operations)
    // A method the path does not list answers 405: OpenAPI has no place for it in a path, so it is a reusable response.
    this.component('responses', METHOD_NOT_ALLOWED, errorResponse(405, { $ref: this.errorRef() }, "A method a path does not list: 405 with `Allow`, once the path's authentication, permissions and throttles passed (they answer first, as for the path's operations)."))
  }

  /** Describes one operation of an app's own route guarded by `policies()`. */
  addPolicyRoute(route: PolicyRoute): void {
    const source: OperationSource = { name: route.name, description: undefined, settings: route.policies.settings, view: false, html: false }
    this.addOperations(route.path, source, { [route.method]: route.openApi })
  }

  private addOperations(path: string, source: OperationSource, operations: Partial<Record<HandlerMethod, OperationDescription>>): void {
    const { path: openPath, params } = openApiPath(path)
    const item = (this.target.paths[openPath] ??= {})
    for (const method of HANDLER_METHODS) {
      const d = operations[method]
      if (d !== undefined) item[method.toLowerCase()] = this.written(this.refs(this.operation(path, params, source, method, d)))
    }
  }

  private errorRef(): string {
    return `#/components/schemas/${this.component('schemas', ERROR_SCHEMA_NAME, ERROR_SCHEMA)}`
  }

  private operation(path: string, pathParams: readonly string[], source: OperationSource, method: HandlerMethod, d: OperationDescription): JsonObject {
    const settings = source.settings
    const op: Record<string, JsonValue> = {}

    const name = source.name ?? ''
    const base = pascal(name) || pascal(path) || 'Root'
    op['operationId'] = this.uniqueOperationId(action(method, d.list !== undefined) + base)
    const summary = d.summary ?? (name === '' ? undefined : name)
    if (summary !== undefined) op['summary'] = summary
    const description = d.description ?? source.description
    if (description !== undefined && description !== '') op['description'] = description
    const tag = tagOf(path)
    const tags = d.tags ?? (tag === null ? [] : [tag])
    if (tags.length > 0) op['tags'] = [...tags]

    // Parameters: the path's, the paginator's (list reads), then the handler's own.
    const paginator: Paginator | null = d.list === undefined ? null : d.list.paginator === undefined ? settings.pagination : d.list.paginator
    const own = d.parameters ?? []
    const ownPath = (p: string): JsonObject | undefined => own.find((o) => o['in'] === 'path' && o['name'] === p)
    const parameters: JsonValue[] = pathParams.map((p) => ownPath(p) ?? { name: p, in: 'path', required: true, schema: { type: 'string' } })
    if (method === 'GET' && paginator !== null) parameters.push(...(paginator.openApiParameters?.() ?? []))
    parameters.push(...own.filter((o) => o['in'] !== 'path'))
    if (parameters.length > 0) op['parameters'] = parameters

    if (d.requestBody !== undefined) {
      const content: Record<string, JsonValue> = {}
      for (const media of source.view ? DEFAULT_PARSED_MEDIA_TYPES : OWN_ROUTE_MEDIA_TYPES) content[media] = { schema: d.requestBody }
      op['requestBody'] = { required: true, content }
    }

    const { security, undescribed, anonymous } = this.security(settings, method)
    op['security'] = [...security]
    if (undescribed.length > 0) op['x-undescribed-authentication'] = undescribed

    op['responses'] = this.responses(d, paginator, pathParams.length > 0, source, anonymous)
    return op
  }

  /**
   * The security requirements of a request with `method` under `settings`: each scheme one
   * alternative, in order (its components added), then `{}` when anonymous requests may
   * pass the permissions. `undescribed`: schemes without `openApiSecurity` (one answering an empty list reads no credentials and is simply left out).
   */
  security(settings: Settings, method: string): { readonly security: readonly JsonObject[]; readonly undescribed: readonly string[]; readonly anonymous: boolean } {
    const security: JsonObject[] = []
    const seen = new Set<string>()
    const undescribed: string[] = []
    // OAuth 2.0 requirements list the scopes the permissions need (OpenAPI 3.1 §4.8.30).
    const scopes = [...new Set(settings.permissions.flatMap((p) => p.openApiScopes?.(method) ?? []))]
    for (const scheme of settings.authentication) {
      if (scheme.openApiSecurity === undefined) {
        undescribed.push(schemeName(scheme))
        continue
      }
      // An empty list is a scheme that reads no credentials (a challenge only): nothing to require.
      const entries = scheme.openApiSecurity(method)
      if (entries.length === 0) continue
      const requirement: Record<string, JsonValue> = {}
      for (const entry of entries) {
        const scoped = entry.scheme['type'] === 'oauth2' || entry.scheme['type'] === 'openIdConnect'
        requirement[this.component('securitySchemes', entry.name, entry.scheme)] = scoped ? [...scopes] : []
      }
      const key = canonical(requirement)
      if (!seen.has(key)) security.push(requirement)
      seen.add(key)
    }
    const anonymous = settings.permissions.every((p) => p.openApiAllowsAnonymous?.(method) === true)
    if (anonymous) security.push({})
    return { security, undescribed, anonymous }
  }

  private responses(d: OperationDescription, paginator: Paginator | null, hasParams: boolean, source: OperationSource, anonymous: boolean): JsonObject {
    const settings = source.settings
    const responses: Record<string, JsonValue> = {}
    const status = d.status ?? 200
    const success: Record<string, JsonValue> = { description: reasonPhrase(status) ?? 'Success' }
    if (d.list !== undefined) {
      const item = d.list.item ?? {}
      const paginated = paginator === null ? null : (paginator.openApiResponse?.(item) ?? { schema: {} })
      if (paginated?.headers !== undefined) success['headers'] = paginated.headers
      const itemName = schemaName(item)
      const envelope =
        paginated === null
          ? { type: 'array', items: item }
          : itemName !== undefined && paginated.name !== undefined
            ? namedSchema(`${itemName}${paginated.name}`, paginated.schema)
            : paginated.schema
      success['content'] = { 'application/json': { schema: envelope } }
    } else if (status !== 204) {
      success['content'] = { 'application/json': { schema: d.response ?? {} } }
    }
    responses[String(status)] = success

    const error = { $ref: this.errorRef() }
    // A view negotiates: an unknown `?format=` is a 404, an `Accept` it cannot render a 406.
    // An own route answers JSON without negotiating; its 404s are its handler's to list.
    const errors = new Set<number>([...(source.view ? [404, 406] : []), ...(d.errors ?? [])])
    if (!source.view && paginator !== null) errors.add(404)
    // Only a handler that reads a body (and says so) answers a body's 400 and 415.
    const readsBody = d.requestBody !== undefined
    if (readsBody) errors.add(400).add(415)
    const schemes = settings.authentication
    const first = schemes[0]
    if (first !== undefined && typeof first.authenticateHeader === 'function') errors.add(401)
    if (schemes.length > 0 || !anonymous) errors.add(403)
    for (const scheme of schemes) for (const s of scheme.openApiErrorStatuses?.() ?? []) errors.add(s)
    if (settings.throttles.length > 0) errors.add(429)
    for (const code of [...errors].sort((a, b) => a - b)) {
      if (code === 400) {
        // A body's field errors, or (a handler's own 400 without a body: a filter set's) messages by query parameter.
        const invalid = { $ref: `#/components/schemas/${this.component('schemas', VALIDATION_ERROR_SCHEMA_NAME, VALIDATION_ERROR_SCHEMA)}` }
        responses['400'] = {
          description: readsBody
            ? 'Invalid request body: messages by field, or `{"detail"}` for a body that does not parse.'
            : 'Invalid query parameters: messages by parameter (a filter value that does not read), or `{"detail"}`.',
          content: { 'application/json': { schema: { anyOf: [invalid, error] } } },
        }
      } else if (code === 404) {
        const why = [...(paginator !== null ? ['an invalid page or cursor'] : hasParams ? ['no such object'] : []), ...(source.view ? ['an unknown `?format=`'] : [])]
        responses['404'] = errorResponse(404, error, why.length === 0 ? undefined : `Not found: ${why.join(', or ')}.`)
      } else {
        responses[String(code)] = errorResponse(code, error)
      }
    }
    return source.html ? withHtmlPages(responses) : responses
  }
}
