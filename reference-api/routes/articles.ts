import type { FastifyInstance } from 'fastify'
import type { ReferenceContext } from '../context.js'

/** The Articles routes of reference-api.md (every pagination style). */
export function registerArticleRoutes(app: FastifyInstance, ref: ReferenceContext): void {
  void app
  void ref
}
