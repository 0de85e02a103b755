import { jsonResponse, type ApiResponse } from '../core/api-response.js'
import type { Route } from '../core/route.js'
import type { ViewOptions } from '../core/view.js'
import { AllowAny } from '../permissions/allow-any.js'
import { openApiDocument, type OpenApiDocument, type OpenApiDocumentOptions } from './document.js'

/** Options of `openApiView`. */
export interface OpenApiViewOptions extends OpenApiDocumentOptions {
  /**
   * The routes to describe. A function, so the view can describe a list that includes its
   * own route: it is called once, on the first request.
   */
  readonly routes: () => readonly Route[]
  /** @default 'OpenAPI Schema' */
  readonly name?: string
}

/**
 * A view serving `openApiDocument(routes())` as JSON (`GET /api/openapi.json`), built on the
 * first request and then reused. Anyone may read it and no scheme runs: pass `permissions`
 * or `authentication` by spreading the result to change that.
 *
 * @example
 * const routes: Route[] = [...]
 * routes.push(route('/api/openapi.json', api.view(openApiView({ routes: () => routes, info: { title: 'Books', version: '1' } }))))
 */
export function openApiView(options: OpenApiViewOptions): ViewOptions {
  const { routes, name, ...documentOptions } = options
  let document: OpenApiDocument | null = null
  const get = async (): Promise<ApiResponse> => {
    document ??= openApiDocument(routes(), documentOptions)
    return jsonResponse(200, document)
  }
  return {
    name: name ?? 'OpenAPI Schema',
    description: 'This API\'s OpenAPI 3.1 document.',
    authentication: [],
    permissions: [new AllowAny()],
    // A document, never a browsable page: tools ask with `Accept: */*` or a browser's header.
    formats: ['json'],
    handlers: {
      GET: Object.assign(get, { openApi: { response: { type: 'object', description: 'An OpenAPI 3.1 document.' } } }),
    },
  }
}
