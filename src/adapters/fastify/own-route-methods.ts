// DRF's 405 for the app's own routes on Fastify: Fastify answers a method a path's routes do
// not take with its 404; where a route of that path is guarded by `policies()`, the app
// gets DRF's 405 with `Allow` instead, from the routes Fastify registered (`onRoute`).
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify'
import { answerOtherMethod, isPromise, OwnRouteTable, targetPath } from '../../http/index.js'
import { sendWire } from './reply.js'
import { apiRequestOf } from './request.js'

/** A route's `preHandler`s, read when a request is looked up (the `gatehouse` plugin adds its own after this hook ran). */
function preHandlers(routeOptions: RouteOptions): readonly unknown[] {
  const hooks = routeOptions.preHandler
  return hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]
}

/**
 * Adds to `app` (the root instance, before its routes) what answers a method the routes of a
 * path do not take with DRF's 405 when one of them is guarded by `policies()`: Fastify's
 * routes are recorded as registered, and the 404 handler's `onRequest` answers such a request
 * (after that route's policies, as DRF) before the app's not-found handler runs. `Allow` lists
 * every method the app's routes take for the path. Paths Fastify reads with a wildcard or a
 * regular expression are left to the app's 404.
 */
export function ownRouteMethods(app: FastifyInstance): void {
  const table = new OwnRouteTable()
  app.addHook('onRoute', (routeOptions) => {
    const methods = Array.isArray(routeOptions.method) ? routeOptions.method : [routeOptions.method]
    table.add({ path: routeOptions.url, methods, handlers: () => preHandlers(routeOptions) })
  })
  // A callback hook, not an async one: every request of the app passes it, and only a 404 has work here.
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (!request.is404) return done()
    const found = table.lookup(targetPath(request.url))
    if (!OwnRouteTable.isOtherMethod(found, request.method)) return done()
    const settings = found.policies.settings
    // Answered here, so `done` is not called: the not-found handler does not run.
    const answer = answerOtherMethod(found.policies, apiRequestOf(request), found.methods)
    if (!isPromise(answer)) return void sendWire(reply, answer, settings)
    answer.then((response) => sendWire(reply, response, settings), done)
  })
}
