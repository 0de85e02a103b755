// DRF's URL conf rules as Fastify server options: the percent-decoded path is routed, and a
// path Fastify cannot decode is DRF's 404.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { routingPath, targetPath } from '../../http/index.js'
import { answerFrameworkError } from './errors.js'

/**
 * Fastify's `rewriteUrl` server option that routes as Django does: the path percent-decoded
 * once (`/api%2Fwhoami/` is `/api/whoami/`), dot segments as sent, the query untouched.
 * Views still see the URL the client sent (`request.originalUrl`).
 *
 * @example
 * const app = Fastify({ rewriteUrl: djangoRewriteUrl })
 */
export function djangoRewriteUrl(req: { readonly url?: string | undefined }): string {
  const target = req.url ?? '/'
  const path = targetPath(target)
  return `${routingPath(path)}${target.slice(path.length)}`
}

/**
 * DRF's routing rules as Fastify server options (they are read when the instance is made):
 * `rewriteUrl` routes the percent-decoded path (`djangoRewriteUrl`: `/api%2Fwhoami/` is
 * `/api/whoami/`, dot segments as sent), and `frameworkErrors` answers a path Fastify cannot
 * decode (`/api/%zz/`) with DRF's `404 {"detail": "Not found."}`, as Django finds no route for
 * it, and Fastify's other request errors with `400 {"detail": "Malformed request."}`. Fastify
 * already routes case-sensitively with the trailing slash significant; `mountRoutes` answers
 * unknown paths below its prefix with DRF's 404 (set `notFound` for the rest of the app).
 *
 * @example
 * const app = Fastify({ ...drfRouting(), logger: true })
 * await mountRoutes(app, [route('/api/books/:id/', book)])
 */
export function drfRouting(): DrfRouting {
  return { rewriteUrl: djangoRewriteUrl, frameworkErrors: answerFrameworkError }
}

/** What `drfRouting()` returns: the two Fastify server options it sets. */
export interface DrfRouting {
  /** Fastify's `rewriteUrl`: `djangoRewriteUrl`. */
  readonly rewriteUrl: (req: { readonly url?: string | undefined }) => string
  /** Fastify's `frameworkErrors`: DRF's 404 for an undecodable path, `400 Malformed request.` for the rest. */
  readonly frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void
}
