import type { FastifyInstance } from 'fastify'
import { mountView } from 'gatehouse/fastify'
import { csrfView } from 'gatehouse'
import { loginView } from 'gatehouse'
import { logoutView } from 'gatehouse'
import { obtainAuthTokenView, userIdAndUsername } from 'gatehouse'
import type { ReferenceContext } from '../context.js'

/** The Tokens-and-sessions routes of reference-api.md (token obtain, csrf, login, logout). */
export function registerTokenRoutes(app: FastifyInstance, ref: ReferenceContext): void {
  const { api, users, tokens, sessions, schemes, loginFailures } = ref
  // The session views share the session scheme's cookie names, so what login sets is what it reads.
  const cookies = { cookieName: schemes.session.cookieName, csrf: schemes.session.csrf }
  mountView(app, '/api/auth/token/', api.view(obtainAuthTokenView({ users, tokens, loginFailures })))
  mountView(
    app,
    '/api/auth/token/detailed/',
    api.view(obtainAuthTokenView({ users, tokens, loginFailures, name: 'Detailed Obtain Auth Token', extraFields: userIdAndUsername })),
  )
  mountView(app, '/api/auth/csrf/', api.view(csrfView(cookies)))
  mountView(app, '/api/auth/login/', api.view(loginView({ users, sessions, loginFailures, ...cookies })))
  mountView(app, '/api/auth/logout/', api.view(logoutView({ sessions, cookieName: cookies.cookieName })))
}
