import { route, type Route } from 'drf-gatehouse'
import { TokenHasScope } from 'drf-gatehouse/oauth2'
import type { ReferenceRoutesContext } from '../context.js'
import { whoami } from './identity.js'

/**
 * The OAuth 2.0 resource-server routes of reference-api.md (`GATEHOUSE_OAUTH_ISSUER`): access
 * tokens from that provider, scope `read` for the GET route and `write` for the POST one; none
 * when the issuer is unset.
 */
export function oauth2Routes(ref: ReferenceRoutesContext): Route[] {
  const scheme = ref.oauth2
  if (scheme === null) return []
  const { api } = ref
  return [
    route('/api/schemes/oauth2/', api.view({ name: 'OAuth2 Scheme', handlers: { GET: whoami }, authentication: [scheme], permissions: [new TokenHasScope('read')] })),
    route('/api/schemes/oauth2-write/', api.view({ name: 'OAuth2 Write Scheme', handlers: { POST: whoami }, authentication: [scheme], permissions: [new TokenHasScope('write')] })),
  ]
}
