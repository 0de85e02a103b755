import { openApiView, route, type Route } from 'drf-gatehouse'
import type { ReferenceRoutesContext } from '../context.js'
import { articleRoutes } from './articles.js'
import { identityRoutes } from './identity.js'
import { jwtSchemeRoutes } from './jwt.js'
import { namedTokenRoutes } from './named-tokens.js'
import { oauth2Routes } from './oauth2.js'
import { throttledRoutes } from './throttled.js'
import { tokenRoutes } from './tokens.js'

/**
 * Every route of the reference API, declared once and framework-neutral: its own, the JWT views
 * `createGatehouse` built (`ref.routes`), `/api/openapi.json` describing them all, and the
 * administration pages under `/admin/` (`ref.pages`: HTML, not in the document).
 */
export function referenceRoutes(ref: ReferenceRoutesContext): Route[] {
  const routes = [...identityRoutes(ref), ...tokenRoutes(ref), ...ref.routes, ...jwtSchemeRoutes(ref), ...oauth2Routes(ref), ...namedTokenRoutes(ref), ...throttledRoutes(ref), ...articleRoutes(ref)]
  const info = { title: 'gatehouse reference API', version: '1.0.0', description: 'The routes of reference-api.md, on any of the four frameworks.', license: { name: 'MIT', identifier: 'MIT' } }
  routes.push(route('/api/openapi.json', ref.api.view(openApiView({ routes: () => routes, info }))))
  return [...routes, ...ref.pages]
}
