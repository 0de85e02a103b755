import { route, type ApiView, type Route } from 'drf-gatehouse'
import { csrfView } from 'drf-gatehouse'
import { loginView } from 'drf-gatehouse'
import { logoutView } from 'drf-gatehouse'
import { namedTokenIssuer, obtainAuthTokenView, userIdAndUsername } from 'drf-gatehouse'
import type { TokenStore } from 'drf-gatehouse'
import type { ReferenceRoutesContext } from '../context.js'

/**
 * True once the database is in the safer token mode: no DRF key left (`gatehouse
 * migrate-tokens` deleted them) while named tokens are in use. Read on every obtain, so a
 * server running during the migration switches at once.
 */
async function tokensMigrated(ref: ReferenceRoutesContext): Promise<boolean> {
  const drf = await ref.db.selectFrom('gatehouse_tokens').select('user_id').limit(1).executeTakeFirst()
  if (drf !== undefined) return false
  return (await ref.db.selectFrom('gatehouse_named_tokens').select('id').limit(1).executeTakeFirst()) !== undefined
}

/**
 * The obtain endpoints' tokens: DRF's get-or-create key, until the tokens were migrated;
 * from then on a new named token per call (a digest only), so no plaintext key is stored again.
 */
function obtainTokens(ref: ReferenceRoutesContext): Pick<TokenStore, 'getOrCreate'> {
  const named = namedTokenIssuer(ref.namedTokens)
  return {
    getOrCreate: async (userId) => ((await tokensMigrated(ref)) ? named.getOrCreate(userId) : ref.tokens.getOrCreate(userId)),
  }
}

/** The Tokens-and-sessions routes of reference-api.md (token obtain, csrf, login, logout). */
export function tokenRoutes(ref: ReferenceRoutesContext): Route[] {
  const routes: Route[] = []
  const add = (path: string, view: ApiView): void => {
    routes.push(route(path, view))
  }
  const { api, users, sessions, schemes, loginFailures } = ref
  const tokens = obtainTokens(ref)
  // The session views share the session scheme's cookie names, so what login sets is what it reads.
  const cookies = { cookieName: schemes.session.cookieName, csrf: schemes.session.csrf }
  add('/api/auth/token/', api.view(obtainAuthTokenView({ users, tokens, loginFailures })))
  add('/api/auth/token/detailed/',
    api.view(obtainAuthTokenView({ users, tokens, loginFailures, name: 'Detailed Obtain Auth Token', extraFields: userIdAndUsername })),
  )
  add('/api/auth/csrf/', api.view(csrfView(cookies)))
  add('/api/auth/login/', api.view(loginView({ users, sessions, loginFailures, ...cookies })))
  add('/api/auth/logout/', api.view(logoutView({ sessions, cookieName: cookies.cookieName })))
  return routes
}
