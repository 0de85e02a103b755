// gatehouse/node: the node:http adapter. Each job has its own file, as in every adapter:
// request.ts reads a request, reply.ts writes a response, views.ts serves DRF-style views,
// routing.ts holds DRF's URL conf rules, middleware.ts runs policies before the app's own
// handler, errors.ts answers errors in DRF's shape, openapi-routes.ts finds the routes an
// OpenAPI document describes.
export { requestUrl, toApiRequest, type NodeHttpOptions } from './request.js'
export { sendApiResponse } from './reply.js'
export { viewHandler, router, mountRoutes, type NodeHandler, type NodeRouterOptions } from './views.js'
export { policies, requestContext, type OwnHandler, type NodeMiddleware } from './middleware.js'
export { errorHandler, notFound } from './errors.js'
export { openApiRoutes } from './openapi-routes.js'
