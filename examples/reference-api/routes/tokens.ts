import { route, type ApiView, type Route } from 'gatehouse'
import { csrfView } from 'gatehouse'
import { loginView } from 'gatehouse'
import { logoutView } from 'gatehouse'
import { obtainAuthTokenView, userIdAndUsername } from 'gatehouse'
import type { ReferenceContext } from '../context.js'

/** The Tokens-and-sessions routes of reference-api.md (token obtain, csrf, login, logout). */
export function tokenRoutes(ref: ReferenceContext): Route[] {
  const routes: Route[] = []
  const add = (path: string, view: ApiView): void => {
    routes.push(route(path, view))
  }
  const { api, users, tokens, sessions, schemes, loginFailures } = ref
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
