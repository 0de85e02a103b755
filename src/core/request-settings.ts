import type { ApiRequest } from './api-request.js'
import type { Settings } from './settings.js'

/** The resolved settings of the view each request is being answered by. */
const SETTINGS = new WeakMap<ApiRequest, Settings>()

/**
 * Remembers the settings a request is answered under, for code that receives the request
 * alone (an authentication scheme's failed-login throttle needs the API's `numProxies`).
 */
export function rememberSettings(req: ApiRequest, settings: Settings): void {
  SETTINGS.set(req, settings)
}

/** The settings `req` is being answered under, or `undefined` outside a view or guard. */
export function settingsOf(req: ApiRequest): Settings | undefined {
  return SETTINGS.get(req)
}
