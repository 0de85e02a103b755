// gatehouse/hono: the Hono adapter. Each job has its own file, as in every adapter:
// request.ts reads a request, reply.ts writes a response, views.ts serves DRF-style views,
// routing.ts holds DRF's URL conf rules, middleware.ts runs policies before the app's own
// handler, errors.ts answers errors in DRF's shape, openapi-routes.ts finds the routes an
// OpenAPI document describes.
export { toApiRequest, type HonoOptions, type GatehouseVariables, type GatehouseEnv } from './request.js'
export { sendApiResponse } from './reply.js'
export { withoutBodilessContentType } from './bodiless-answers.js'
export { viewHandler, mountRoutes } from './views.js'
export { djangoGetPath, drfRouting } from './routing.js'
export { policies, requestContext } from './middleware.js'
export { errorHandler, notFound, requestErrorHandler } from './errors.js'
export { openApiRoutes } from './openapi-routes.js'
