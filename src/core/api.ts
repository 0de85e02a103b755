import { Policies, type PolicyOptions } from './policies.js'
import { resolveSettings, type Settings } from './settings.js'
import { ApiView, type ViewOptions } from './view.js'

/** Settings resolved once, and factories for the routes that inherit them. */
export interface Api {
  readonly settings: Settings
  /** A DRF-style view with per-view overrides, resolved now, never per request. */
  view(options: ViewOptions): ApiView
  /**
   * The policies of one route of the app's own (middleware style): framework adapters run
   * it before the app's handler. Resolved now, never per request.
   */
  policies(options?: PolicyOptions): Policies
}

/**
 * Creates an API: library defaults ⊕ `settings`, validated (a bad key throws a
 * `ConfigurationError` naming it) and frozen.
 *
 * @example
 * const api = createApi({ authentication: [new TokenAuthentication({ tokens, users })] })
 * const whoami = api.view({ handlers: { GET: async (ctx) => jsonResponse(200, { user: ctx.user.username }) } })
 */
export function createApi(settings: Partial<Settings> = {}): Api {
  const resolved = resolveSettings(settings)
  const policies = (options: PolicyOptions = {}): Policies => new Policies(resolved, options)
  return Object.freeze({
    settings: resolved,
    view: (options: ViewOptions): ApiView => new ApiView(resolved, options),
    policies,
  })
}
