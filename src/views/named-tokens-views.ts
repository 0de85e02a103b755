import type { AuthenticationScheme } from '../authentication/authentication-scheme.js'
import { emptyResponse, jsonResponse, type ApiResponse } from '../core/api-response.js'
import { ConfigurationError, NotFound, PermissionDenied } from '../core/errors.js'
import { namedSchema } from '../core/named-schema.js'
import type { UserId } from '../core/user.js'
import type { RequestContext, ViewOptions } from '../core/view.js'
import { IsAuthenticated } from '../permissions/is-authenticated.js'
import { NamedTokenLimitExceeded, type NamedTokenInfo, type NamedTokenStore } from '../stores/named-token-store.js'
import type { Throttle } from '../throttling/throttle.js'
import { TOKEN_LIMIT_MESSAGE } from './named-token-issuer.js'
import { MAX_EXPIRES_IN, MAX_TOKEN_NAME_LENGTH, parseTokenId, validateNewToken } from './named-token-input.js'

/** Options shared by the named-token views. */
export interface NamedTokenViewOptions {
  /** Where the requester's tokens live (`KyselyNamedTokenStore`, or your own). */
  readonly tokens: Pick<NamedTokenStore, 'create' | 'list' | 'revoke' | 'revokeAll'>
  /** Shown in OPTIONS metadata. */
  readonly name?: string
  /** Who may call the view is always an authenticated user; these schemes say how. @default the API's global schemes */
  readonly authentication?: readonly AuthenticationScheme[]
  /** @default the API's global throttles */
  readonly throttles?: readonly Throttle[]
  /**
   * `namedTokensView` only: a user holding this many tokens (expired ones included) cannot
   * create another, `403 {"detail": "Maximum amount of tokens allowed per user exceeded."}`
   * (knox's `TOKEN_LIMIT_PER_USER`). A limit, not a bound: the store counts and inserts as one
   * step (`NewNamedToken.limit`), so concurrent requests never end past it. @default no limit
   */
  readonly maxTokensPerUser?: number | undefined
}

const TOKEN_INFO_PROPERTIES = {
  id: { type: 'integer' },
  name: { type: 'string', maxLength: MAX_TOKEN_NAME_LENGTH },
  prefix: { type: 'string', description: 'The start of the token, to recognise it by.' },
  created: { type: 'string', format: 'date-time' },
  expires: { type: ['string', 'null'], format: 'date-time' },
  last_used: { type: ['string', 'null'], format: 'date-time', description: 'Updated at most once a minute.' },
} as const
const TOKEN_INFO_REQUIRED = ['id', 'name', 'prefix', 'created', 'expires', 'last_used'] as const
const TOKEN_INFO_SCHEMA = namedSchema('NamedToken', { type: 'object', required: TOKEN_INFO_REQUIRED, properties: TOKEN_INFO_PROPERTIES })

/** How a token is listed: `{id, name, prefix, created, expires, last_used}`, never the token itself. */
export function namedTokenJson(token: NamedTokenInfo): Record<string, unknown> {
  return {
    id: token.id,
    name: token.name,
    prefix: token.displayPrefix,
    created: token.created.toISOString(),
    expires: token.expiresAt?.toISOString() ?? null,
    last_used: token.lastUsedAt?.toISOString() ?? null,
  }
}

/** The requester's id: the views require `IsAuthenticated`, so there is one. */
function requesterId(ctx: RequestContext): UserId {
  const id = ctx.user.id
  if (id === null) throw new Error('named-token view reached without an authenticated user')
  return id
}

/**
 * The new token's expiry, never past `limit` (the requester's own credential's expiry): a
 * token may not mint one that outlives it, so a stolen expiring token cannot be made
 * permanent. No expiry asked for, or a later one, becomes `limit` itself.
 */
function cappedExpiry(expiresIn: number | null, limit: Date | null): { readonly expiresIn: number | null } | { readonly expiresAt: Date } {
  if (limit === null) return { expiresIn }
  if (expiresIn !== null && Date.now() + expiresIn * 1000 < limit.getTime()) return { expiresIn }
  return { expiresAt: limit }
}

function common(options: NamedTokenViewOptions, name: string): Omit<ViewOptions, 'handlers'> {
  return {
    name: options.name ?? name,
    permissions: [new IsAuthenticated()],
    ...(options.authentication === undefined ? {} : { authentication: options.authentication }),
    ...(options.throttles === undefined ? {} : { throttles: options.throttles }),
  }
}

/**
 * The requester's named tokens. `GET`: `200 [{id, name, prefix, created, expires,
 * last_used}, …]`, oldest first, never a token. `POST {"name": "laptop", "expires_in": 3600}`
 * (`expires_in` in seconds, optional): `201` with the same fields and `token`, the only time
 * the token is shown. Bad input is a DRF-style `400` per field. Any authenticated request may
 * call it (Basic with a password included: that is how a first token is obtained). A request
 * authenticated by an expiring credential (a named token with an expiry, a JWT access token,
 * a session: its scheme's `expiresAt`) creates tokens that expire no later than it: asking
 * for no expiry, or a later one, gets the credential's own expiry (`expires` says which).
 *
 * @example
 * route('/api/auth/tokens/', api.view(namedTokensView({ tokens: namedTokens })))
 */
export function namedTokensView(options: NamedTokenViewOptions): ViewOptions {
  const { tokens, maxTokensPerUser } = options
  if (maxTokensPerUser !== undefined && (!Number.isSafeInteger(maxTokensPerUser) || maxTokensPerUser < 1)) {
    throw new ConfigurationError('ERR_INVALID_SETTING', 'namedTokensView option "maxTokensPerUser" must be a positive integer')
  }
  const list = async (ctx: RequestContext): Promise<ApiResponse> =>
    jsonResponse(200, (await tokens.list(requesterId(ctx))).map(namedTokenJson))
  const create = async (ctx: RequestContext): Promise<ApiResponse> => {
    const input = validateNewToken(await ctx.request.body(), ctx.request)
    const userId = requesterId(ctx)
    // Counted first for a store of your own that ignores `limit`; the store's count-and-insert is what holds under concurrency.
    if (maxTokensPerUser !== undefined && (await tokens.list(userId)).length >= maxTokensPerUser) {
      throw new PermissionDenied(TOKEN_LIMIT_MESSAGE)
    }
    let created
    try {
      created = await tokens.create(userId, {
        name: input.name,
        ...cappedExpiry(input.expiresIn, ctx.credentialExpiresAt),
        ...(maxTokensPerUser === undefined ? {} : { limit: { max: maxTokensPerUser } }),
      })
    } catch (error) {
      if (error instanceof NamedTokenLimitExceeded) throw new PermissionDenied(TOKEN_LIMIT_MESSAGE)
      throw error
    }
    // The only time the token is shown: no cache may keep it.
    return jsonResponse(201, { ...namedTokenJson(created.info), token: created.key }, [['Cache-Control', 'no-store']])
  }
  return {
    ...common(options, 'Named Tokens'),
    handlers: {
      GET: Object.assign(list, {
        openApi: { summary: "Lists the requester's named tokens (never the tokens themselves).", response: { type: 'array', items: TOKEN_INFO_SCHEMA } },
      }),
      POST: Object.assign(create, {
        openApi: {
          summary: 'Creates a named token and shows it, once.',
          status: 201,
          requestBody: {
            type: 'object',
            required: ['name'],
            properties: {
              name: { type: 'string', minLength: 1, maxLength: MAX_TOKEN_NAME_LENGTH },
              expires_in: { type: ['integer', 'null'], minimum: 1, maximum: MAX_EXPIRES_IN, description: "Seconds until the token expires; absent or null: never. A request authenticated by an expiring credential (token, JWT, session) gets no later expiry than its own credential's." },
            },
          },
          response: {
            type: 'object',
            required: [...TOKEN_INFO_REQUIRED, 'token'],
            properties: { ...TOKEN_INFO_PROPERTIES, token: { type: 'string', description: 'Send it as `Authorization: Token <token>`. Shown only now.' } },
          },
        },
      }),
    },
  }
}

/**
 * One of the requester's named tokens, by the route parameter `:id`. `DELETE`: revokes it,
 * `204`; an id that is not one of the requester's tokens (another user's included) is `404`.
 *
 * @example
 * route('/api/auth/tokens/:id/', api.view(namedTokenDetailView({ tokens: namedTokens })))
 */
export function namedTokenDetailView(options: NamedTokenViewOptions): ViewOptions {
  const { tokens } = options
  const revoke = async (ctx: RequestContext): Promise<ApiResponse> => {
    const id = parseTokenId(ctx.params['id'] ?? '')
    if (id === null || !(await tokens.revoke(requesterId(ctx), id))) throw new NotFound()
    return emptyResponse(204)
  }
  return {
    ...common(options, 'Named Token'),
    handlers: {
      DELETE: Object.assign(revoke, {
        openApi: {
          summary: "Revokes one of the requester's named tokens.",
          status: 204,
          parameters: [{ name: 'id', in: 'path', required: true, description: "The token's `id`.", schema: { type: 'integer', minimum: 1 } }],
        },
      }),
    },
  }
}

/**
 * `POST`: revokes every named token of the requester (the one the request came with
 * included), `204`.
 *
 * @example
 * route('/api/auth/tokens/revoke-all/', api.view(revokeAllNamedTokensView({ tokens: namedTokens })))
 */
export function revokeAllNamedTokensView(options: NamedTokenViewOptions): ViewOptions {
  const { tokens } = options
  const revokeAll = async (ctx: RequestContext): Promise<ApiResponse> => {
    await tokens.revokeAll(requesterId(ctx))
    return emptyResponse(204)
  }
  return {
    ...common(options, 'Revoke All Named Tokens'),
    handlers: { POST: Object.assign(revokeAll, { openApi: { summary: "Revokes every named token of the requester.", status: 204 } }) },
  }
}
