import type { FastifyInstance } from 'fastify'
import type { ReferenceContext } from '../context.js'

/** The Tokens-and-sessions routes of reference-api.md (token obtain, csrf, login, logout). */
export function registerTokenRoutes(app: FastifyInstance, ref: ReferenceContext): void {
  void app
  void ref
}
