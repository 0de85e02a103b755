import type { ApiResponse } from '../core/api-response.js'
import { isApiError, Throttled } from '../core/errors.js'
import type { Handler, RequestContext } from '../core/view.js'
import { errorPage } from './admin-auth.js'
import type { ResolvedAdminOptions } from './admin-options.js'

/**
 * An admin page handler: a refusal the request earned (a malformed body, a 415, a 413, a
 * throttled login, a store outage) becomes an admin page with its status and message; any
 * other error goes on to the view, which logs it and answers 500.
 */
export function adminHandler(options: ResolvedAdminOptions, handle: (ctx: RequestContext) => Promise<ApiResponse>): Handler {
  return async (ctx) => {
    try {
      return await handle(ctx)
    } catch (error) {
      if (!isApiError(error)) throw error
      const retry: readonly (readonly [string, string])[] = error instanceof Throttled && error.wait !== null ? [['Retry-After', String(error.wait)]] : []
      return errorPage(options, error.status, typeof error.detail === 'string' ? error.detail : 'The request was refused.', retry)
    }
  }
}

/** A form body's text field (`''` when absent or not text). */
export function formField(data: unknown, name: string): string {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return ''
  const value = (data as Record<string, unknown>)[name]
  return typeof value === 'string' ? value : ''
}
