import type { ApiRequest } from './api-request.js'
import type { User } from './user.js'

/** What a view tells policies about itself. */
export interface ViewInfo {
  readonly name: string
  /** Scope for `ScopedRateThrottle`; `null` when the view has none. */
  readonly throttleScope: string | null
}

/** The part of a view's settings that policies read (the pipeline passes the whole `Settings`). */
export interface PolicySettings {
  /** Trusted proxies in front of the app: how a throttle finds the client address in `X-Forwarded-For`. */
  readonly numProxies: number
}

/** What permissions and throttles see: the request, its identity and the view's settings. */
export interface PolicyContext {
  readonly request: ApiRequest
  readonly user: User
  readonly auth: unknown
  readonly view: ViewInfo
  /**
   * The settings of the view or `Policies` answering the request: always set on the contexts the
   * pipeline builds; a context built by hand may leave them out (a throttle then trusts no proxy).
   */
  readonly settings?: PolicySettings
}
