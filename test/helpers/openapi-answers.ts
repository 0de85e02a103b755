import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats'

type Json = Record<string, unknown>

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats: FormatsPlugin = (addFormatsModule as unknown as { default: FormatsPlugin }).default

/** One answer of the server, as the checker needs it. */
export interface Answer {
  readonly method: string
  /** The path below the document's server (mount prefix removed), no query. */
  readonly path: string
  readonly status: number
  readonly headers: Headers
  /** The body text ('' when none). */
  readonly body: string
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)
const pointer = (...keys: string[]): string => keys.map((k) => encodeURIComponent(k.replaceAll('~', '~0').replaceAll('/', '~1'))).join('/')

/**
 * Checks answers against an OpenAPI 3.1 document: the status is listed for the operation
 * (a method the path does not list: `components.responses.MethodNotAllowed`), the media
 * type is listed, required headers are present, and the body is valid against the listed
 * JSON Schema (ajv, draft 2020-12, formats checked, `$ref`s resolved in the document).
 */
export class OpenApiAnswers {
  private readonly ajv: Ajv2020
  private readonly validators = new Map<string, ValidateFunction>()
  private readonly paths: Record<string, Json>

  constructor(private readonly doc: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false })
    addFormats(this.ajv)
    this.ajv.addFormat('password', true)
    this.ajv.addSchema(doc, 'openapi')
    this.paths = doc['paths'] as Record<string, Json>
  }

  /** The document path (`/api/auth/tokens/{id}/`) a concrete path matches, or `null`. */
  template(path: string): string | null {
    const segments = path.split('/')
    for (const template of Object.keys(this.paths)) {
      const parts = template.split('/')
      if (parts.length === segments.length && parts.every((p, i) => (p.startsWith('{') && p.endsWith('}') ? segments[i] !== '' : p === segments[i]))) return template
    }
    return null
  }

  /** The problems with `answer` (empty: it matches the document). */
  problems(answer: Answer): string[] {
    const where = `${answer.method} ${answer.path} → ${answer.status}`
    const template = this.template(answer.path)
    if (template === null) return [`${where}: the path is not in the document`]
    const method = answer.method.toLowerCase()
    const op = this.paths[template]?.[method]
    // A method the path does not list: 405, unless the path's policies answer first (as DRF
    // runs authentication, permissions and throttles before finding the handler), in which
    // case the answer is one a listed operation of the path documents.
    const item = this.paths[template] ?? {}
    const listed = Object.keys(item).find((m) => isObject(item[m]) && this.at(['paths', template, m, 'responses', String(answer.status)]) !== undefined)
    if (op === undefined && answer.status !== 405 && listed === undefined) return [`${where}: the method is not documented and no operation of the path lists this status`]
    const at =
      op !== undefined
        ? ['paths', template, method, 'responses', String(answer.status)]
        : answer.status === 405
          ? ['components', 'responses', 'MethodNotAllowed']
          : ['paths', template, listed ?? '', 'responses', String(answer.status)]
    const response = this.at(at)
    if (!isObject(response)) return [`${where}: status not documented`]
    const problems: string[] = []
    for (const [name, header] of Object.entries((response['headers'] as Json | undefined) ?? {})) {
      if (isObject(header) && header['required'] === true && !answer.headers.has(name)) problems.push(`${where}: required header ${name} missing`)
    }
    const content = response['content'] as Json | undefined
    if (content === undefined) {
      if (answer.body !== '') problems.push(`${where}: a body where the document lists none`)
      return problems
    }
    const media = (answer.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? ''
    if (!Object.hasOwn(content, media)) return [...problems, `${where}: media type "${media}" not documented (${Object.keys(content).join(', ')})`]
    if (!isObject((content[media] as Json | undefined)?.['schema'])) return problems
    const validate = this.validator([...at, 'content', media, 'schema'])
    let body: unknown
    try {
      body = JSON.parse(answer.body)
    } catch {
      return [...problems, `${where}: the body is not JSON`]
    }
    if (!validate(body)) problems.push(`${where}: ${this.ajv.errorsText(validate.errors)} in ${answer.body.slice(0, 300)}`)
    return problems
  }

  private at(keys: readonly string[]): unknown {
    let current: unknown = this.doc
    for (const key of keys) current = isObject(current) ? current[key] : undefined
    return current
  }

  private validator(keys: readonly string[]): ValidateFunction {
    const ref = `openapi#/${pointer(...keys)}`
    let validate = this.validators.get(ref)
    if (validate === undefined) {
      validate = this.ajv.compile({ $ref: ref })
      this.validators.set(ref, validate)
    }
    return validate
  }
}
