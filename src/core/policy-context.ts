import type { ApiRequest } from './api-request.js'
import type { User } from './user.js'

/** What a view tells policies about itself. */
export interface ViewInfo {
  readonly name: string
  /** Scope for `ScopedRateThrottle`; `null` when the view has none. */
  readonly throttleScope: string | null
}

/** What permissions and throttles see: the request and its identity. */
export interface PolicyContext {
  readonly request: ApiRequest
  readonly user: User
  readonly auth: unknown
  readonly view: ViewInfo
}
