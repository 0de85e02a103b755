import type { AuthenticationScheme } from '../authentication/authentication-scheme.js'
import { jsonResponse, type ApiResponse } from '../core/api-response.js'
import type { JsonObject } from '../core/openapi-types.js'
import type { StoredUser } from '../core/user.js'
import type { ActionFields } from '../core/action-metadata.js'
import type { RequestContext, ViewOptions } from '../core/view.js'
import type { TokenRecord, TokenStore } from '../stores/token-store.js'
import type { UserStore } from '../stores/user-store.js'
import type { LoginFailureThrottle } from '../throttling/login-failure-throttle.js'
import type { Throttle } from '../throttling/throttle.js'
import { authenticateCredentials } from './authenticate-credentials.js'
import { CREDENTIALS_SCHEMA } from './credentials-schema.js'

/** The JSON Schema of a derived token view's extra fields, for OpenAPI documents. */
export interface TokenResponseFieldsSchema {
  /** Each field's JSON Schema. */
  readonly properties: Readonly<Record<string, JsonObject>>
  /** The fields always sent. @default none */
  readonly required?: readonly string[]
}

/**
 * Extra response fields of a derived token view, written after `token`. A `schema` property
 * on the function describes them in OpenAPI documents (without one, the 200 body allows any
 * further field).
 */
export type TokenResponseFields = ((
  user: StoredUser,
  token: TokenRecord,
) => Readonly<Record<string, unknown>> | Promise<Readonly<Record<string, unknown>>>) & { readonly schema?: TokenResponseFieldsSchema }

/** Options for `obtainAuthTokenView`. */
export interface ObtainAuthTokenOptions {
  /** Checks the username and password (inactive users never authenticate). */
  readonly users: Pick<UserStore, 'authenticate' | 'canonicalUsername'>
  /** Gives the user's token, creating it when missing (same key on every call). */
  readonly tokens: Pick<TokenStore, 'getOrCreate'>
  /** Shown in OPTIONS metadata. @default 'Obtain Auth Token' */
  readonly name?: string
  readonly description?: string
  /**
   * Throttles of this view. DRF's view sets none and ignores the global
   * throttles, so brute force is not limited unless you pass some here.
   * @default []
   */
  readonly throttles?: readonly Throttle[]
  /** Scope read by a scoped-rate throttle passed in `throttles`. */
  readonly throttleScope?: string
  /**
   * Authentication schemes run before the handler. DRF keeps the global ones, so a
   * malformed `Authorization` header fails here as on any view.
   * @default the API's global schemes
   */
  readonly authentication?: readonly AuthenticationScheme[]
  /** Adds fields after `token` (DRF docs' derived view); a `token` key here is ignored. */
  readonly extraFields?: TokenResponseFields
  /**
   * Counts failed password checks per username and client address; past its rate the view
   * answers 429 (right password included). Share one instance with Basic and the other views.
   * @default none
   */
  readonly loginFailures?: LoginFailureThrottle | undefined
}

/** The derived view's extra fields: `{"user_id": <id>, "username": <name>}` (with their `schema`). */
export const userIdAndUsername: ((user: StoredUser) => Readonly<Record<string, unknown>>) & { readonly schema: TokenResponseFieldsSchema } = Object.assign(
  (user: StoredUser): Readonly<Record<string, unknown>> => ({ user_id: user.id, username: user.username }),
  {
    schema: {
      properties: { user_id: { type: ['integer', 'string'], description: "The user's id (an integer with the built-in stores)." }, username: { type: 'string' } },
      required: ['user_id', 'username'],
    },
  },
)

/** The 200 body's schema: `token`, then the extra fields (described, or any). */
function tokenResponseSchema(extraFields: TokenResponseFields | undefined): JsonObject {
  const extra = extraFields?.schema
  const properties: Record<string, JsonObject> = { token: { type: 'string' } }
  for (const [key, schema] of Object.entries(extra?.properties ?? {})) if (key !== 'token') properties[key] = schema
  return {
    type: 'object',
    required: ['token', ...(extra?.required ?? []).filter((k) => k !== 'token')],
    properties,
    ...(extraFields === undefined || extra !== undefined ? { additionalProperties: false } : {}),
  }
}

/** DRF's `AuthTokenSerializer`: the credentials it reads and the token it answers. */
const TOKEN_SERIALIZER_FIELDS: ActionFields = {
  username: { type: 'string', required: true, read_only: false, label: 'Username' },
  password: { type: 'string', required: true, read_only: false, label: 'Password' },
  token: { type: 'string', required: false, read_only: true, label: 'Token' },
}

/**
 * DRF's `ObtainAuthToken` as view options: `POST` a JSON, urlencoded or multipart
 * body with `username` and `password`, get `200 {"token": "<key>"}` (created when
 * missing, the same key afterwards). No permissions and no throttles by default;
 * JSON only (`Accept: text/html` alone is 406); bad, unknown or inactive credentials
 * are `400 {"non_field_errors": ["Unable to log in with provided credentials."]}`.
 * Pass the result to `api.view()`; spread it to change anything else.
 *
 * @example
 * route('/api/auth/token/', api.view(obtainAuthTokenView({ users, tokens })))
 * // a throttled variant, and one answering user_id and username too:
 * api.view(obtainAuthTokenView({ users, tokens, throttles: [loginThrottle] }))
 * api.view(obtainAuthTokenView({ users, tokens, extraFields: userIdAndUsername }))
 */
export function obtainAuthTokenView(options: ObtainAuthTokenOptions): ViewOptions {
  const { users, tokens, extraFields } = options
  const post = async (ctx: RequestContext): Promise<ApiResponse> => {
    const user = await authenticateCredentials(ctx.request, users, options.loginFailures)
    const token = await tokens.getOrCreate(user.id)
    const body: Record<string, unknown> = { token: token.key }
    if (extraFields !== undefined) {
      for (const [key, value] of Object.entries(await extraFields(user, token))) if (key !== 'token') body[key] = value
    }
    return jsonResponse(200, body)
  }
  return {
    name: options.name ?? 'Obtain Auth Token',
    // DRF's ObtainAuthToken.parser_classes: FormParser, MultiPartParser, JSONParser.
    parses: ['application/x-www-form-urlencoded', 'multipart/form-data', 'application/json'],
    ...(options.description === undefined ? {} : { description: options.description }),
    handlers: {
      POST: Object.assign(post, {
        openApi: {
          requestBody: CREDENTIALS_SCHEMA,
          response: tokenResponseSchema(extraFields),
          ...(options.loginFailures === undefined ? {} : { errors: [429] }),
        },
      }),
    },
    actions: { POST: TOKEN_SERIALIZER_FIELDS },
    permissions: [],
    throttles: options.throttles ?? [],
    ...(options.throttleScope === undefined ? {} : { throttleScope: options.throttleScope }),
    ...(options.authentication === undefined ? {} : { authentication: options.authentication }),
    // JSON only, as DRF's ObtainAuthToken (renderer_classes = JSONRenderer): Accept text/html alone is a 406.
    formats: ['json'],
  }
}
