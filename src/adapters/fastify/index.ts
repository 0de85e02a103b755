// gatehouse/fastify: the Fastify adapter. Each job has its own file, as in every adapter:
// request.ts reads a request, reply.ts writes a response, views.ts serves DRF-style views,
// routing.ts holds DRF's URL conf rules, middleware.ts runs policies before the app's own
// handler (and the `gatehouse` plugin), errors.ts answers errors in DRF's shape (and the
// `drfErrors` plugin), openapi-routes.ts finds the routes an OpenAPI document describes.
export { toApiRequest, type FastifyOptions } from './request.js'
export { sendApiResponse } from './reply.js'
export { viewHandler, mountRoutes } from './views.js'
export { djangoRewriteUrl, drfRouting } from './routing.js'
export { policies, requestContext, gatehouse } from './middleware.js'
export { errorHandler, notFound, drfErrors, type DrfErrorsOptions } from './errors.js'
export { openApiRoutes } from './openapi-routes.js'
