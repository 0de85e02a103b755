import { PageNumberPagination, StaleSessionCookie, type AuthenticationScheme, type SessionAuthentication, type Settings } from 'drf-gatehouse'
import type { ReferenceConfig } from './config.js'

/**
 * The reference API's settings (`createApi`'s) on its schemes: Token, Session, Basic; page
 * numbers, 10 a page; the trusted proxies and hosts of `config`. The Node entry (context.ts)
 * and the Worker entry (worker.ts) build their `api` from this one call.
 */
export function referenceApiSettings(
  config: Pick<ReferenceConfig, 'count' | 'numProxies' | 'allowedHosts'>,
  schemes: { readonly token: AuthenticationScheme; readonly session: SessionAuthentication; readonly basic: AuthenticationScheme },
): Partial<Settings> {
  return {
    authentication: [schemes.token, schemes.session, schemes.basic],
    pagination: new PageNumberPagination(config.count === undefined ? {} : { count: config.count }),
    pageSize: 10,
    numProxies: config.numProxies ?? 0,
    allowedHosts: config.allowedHosts ?? ['localhost', '127.0.0.1', '[::1]'],
    // Django's session middleware: a session cookie that holds no session is deleted.
    responseMiddleware: [new StaleSessionCookie({ session: schemes.session })],
  }
}
