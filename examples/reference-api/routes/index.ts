import type { Route } from 'gatehouse'
import type { ReferenceContext } from '../context.js'
import { articleRoutes } from './articles.js'
import { identityRoutes } from './identity.js'
import { namedTokenRoutes } from './named-tokens.js'
import { throttledRoutes } from './throttled.js'
import { tokenRoutes } from './tokens.js'

/** Every route of the reference API, declared once and framework-neutral. */
export function referenceRoutes(ref: ReferenceContext): Route[] {
  return [...identityRoutes(ref), ...tokenRoutes(ref), ...namedTokenRoutes(ref), ...throttledRoutes(ref), ...articleRoutes(ref)]
}
