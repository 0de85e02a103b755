import { ConfigurationError } from '../core/errors.js'
import { jsonResponse, type ApiResponse } from '../core/api-response.js'
import type { JsonObject } from '../core/openapi-types.js'
import type { ViewOptions } from '../core/view.js'
import type { Throttle } from '../throttling/throttle.js'
import type { JwtCodec } from './jwt-codec.js'
import type { PublicJwk } from './jwt-keys.js'

/** Options for `jwksView`. */
export interface JwksViewOptions {
  /** The codec whose public key is served (`RS*`/`ES*` with `signingKey` or `verifyingKey`). */
  readonly codec: JwtCodec
  /**
   * Keys served after the codec's own: the public JWKs of keys being retired, so tokens they
   * signed still verify on servers reading this document until they expire. @default none
   */
  readonly retiredKeys?: readonly PublicJwk[]
  /** How long (seconds) clients and caches may keep the document (`Cache-Control: public, max-age`). @default 300 */
  readonly maxAge?: number
  /** Throttles of the view. @default the API's global throttles */
  readonly throttles?: readonly Throttle[]
}

const STRING: JsonObject = { type: 'string' }
const JWKS_SCHEMA: JsonObject = {
  type: 'object',
  required: ['keys'],
  properties: {
    keys: {
      type: 'array',
      items: {
        type: 'object',
        required: ['kty', 'kid', 'alg', 'use'],
        properties: { kty: { enum: ['RSA', 'EC'] }, kid: STRING, alg: STRING, use: { const: 'sig' }, n: STRING, e: STRING, crv: STRING, x: STRING, y: STRING },
      },
    },
  },
  additionalProperties: false,
}

/**
 * A JSON Web Key Set document (RFC 7517) of the codec's public key: `GET` answers
 * `200 {"keys": [{"kty", "kid", "alg", "use": "sig", …}]}`, the `kid` being the one the
 * codec writes in every token's header. Point simplejwt's `JWK_URL` (or another gatehouse's
 * `jwkUrl`) at it, and servers holding no key verify the tokens this one issues. Public: no
 * authentication, no permission.
 *
 * @example
 * route('/api/jwt/jwks/', api.view(jwksView({ codec })))
 * @throws ConfigurationError when the codec has no public key (an `HS*` algorithm, or `jwkUrl` only).
 */
export function jwksView(options: JwksViewOptions): ViewOptions {
  const own = options.codec.settings.publicJwk
  if (own === null) throw new ConfigurationError('ERR_INVALID_SETTING', 'jwksView needs an RS*/ES* codec with "signingKey" or "verifyingKey" (an HMAC key is secret)')
  const maxAge = options.maxAge ?? 300
  if (!Number.isSafeInteger(maxAge) || maxAge < 0) throw new ConfigurationError('ERR_INVALID_SETTING', 'jwksView option "maxAge" must be a whole number of seconds >= 0')
  const document = Object.freeze({ keys: [own, ...(options.retiredKeys ?? []).filter((k) => k.kid !== own.kid)] })
  const get = (): Promise<ApiResponse> => Promise.resolve(jsonResponse(200, document, [['Cache-Control', `public, max-age=${maxAge}`]]))
  return {
    name: 'JSON Web Key Set',
    description: "The public keys tokens are signed with (RFC 7517), by `kid`: simplejwt's `JWK_URL`.",
    handlers: { GET: Object.assign(get, { openApi: { response: JWKS_SCHEMA } }) },
    authentication: [],
    permissions: [],
    formats: ['json'],
    ...(options.throttles === undefined ? {} : { throttles: options.throttles }),
  }
}
