// The usual Express layout, `express.json()` on the app and `errorHandler(api)` on a router
// mounted under `/api`, leaves a malformed body to Express's final handler (an HTML stack
// trace): body-parser's error skips the router (Express passes an error only to error
// middleware, and a router is not one). Found on the first guarded request, made safe for the
// paths below that router, and reported once.
import type { ErrorRequestHandler, Request } from 'express'
import type { Settings } from '../../index.js'
import { answerBodyParserError, isBodyParserError } from './errors.js'

/** Express's body parsers, by the names their middleware has (`express.json()` is `jsonParser`). */
const PARSERS = new Set(['jsonParser', 'urlencodedParser', 'textParser', 'rawParser'])

/** Apps already looked at: the check runs once per app, on its first guarded request. */
const checked = new WeakSet<object>()

interface TopLayer {
  readonly name?: unknown
  readonly handle?: unknown
}

function topLayers(app: object): readonly TopLayer[] {
  const a = app as { readonly _router?: { readonly stack?: unknown }; readonly router?: { readonly stack?: unknown } }
  const stack = '_router' in app ? a._router?.stack : a.router?.stack
  return Array.isArray(stack) ? (stack as TopLayer[]) : []
}

/**
 * On an app's first guarded request (`req` reached a `policies()` middleware in a router
 * mounted at `req.baseUrl`): when a body parser runs on the app itself and no error middleware
 * does, adds one to the app, for the paths below that router, answering the parsers' failures
 * as `errorHandler` does (`400 {"detail": "JSON parse error - …"}`, `413`), and warns once
 * (`GATEHOUSE_EXPRESS_PARSER_LAYOUT`) that `app.use(errorHandler(api))` belongs on the app.
 */
export function guardParserLayout(req: Request, settings: Settings): void {
  const app = req.app as unknown as object & { use(path: string, handler: ErrorRequestHandler): unknown }
  if (checked.has(app)) return
  checked.add(app)
  const layers = topLayers(app)
  const parser = layers.some((layer) => typeof layer.name === 'string' && PARSERS.has(layer.name))
  const errorMiddleware = layers.some((layer) => typeof layer.handle === 'function' && layer.handle.length === 4)
  if (!parser || errorMiddleware) return
  const mount = req.baseUrl === '' ? '/' : req.baseUrl
  app.use(mount, (error, req, res, next) => {
    if (res.headersSent || !isBodyParserError(error)) return next(error)
    answerBodyParserError(req, res, next, error, settings)
  })
  process.emitWarning(
    `gatehouse: a body parser (express.json()…) runs on the Express app but no error middleware does, so a malformed body is answered by Express's HTML error page; gatehouse now answers the parsers' errors below ${mount} in DRF's shape. Put app.use(errorHandler(api)) on the app, after your routers.`,
    { code: 'GATEHOUSE_EXPRESS_PARSER_LAYOUT' },
  )
}
