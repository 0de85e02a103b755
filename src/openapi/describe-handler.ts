import type { OperationDescription } from '../core/openapi-types.js'
import type { Handler } from '../core/view.js'

/**
 * A copy of `handler` carrying `description` for OpenAPI documents (merged over what it
 * already says: `listHandler`'s `list`, a previous `describeHandler`; `parameters` and
 * `errors` are added to the ones it already lists). The handler runs exactly as before.
 *
 * @example
 * handlers: { POST: describeHandler(createBook, { status: 201, requestBody: bookInput, response: book }) }
 */
export function describeHandler(handler: Handler, description: OperationDescription): Handler {
  const copy = (ctx: Parameters<Handler>[0]): ReturnType<Handler> => handler(ctx)
  return Object.assign(copy, {
    ...(handler.validate === undefined ? {} : { validate: handler.validate }),
    openApi: {
      ...handler.openApi,
      ...description,
      // Parameters add up: a list's ordering parameter stays beside a handler's own filters.
      ...(handler.openApi?.parameters !== undefined && description.parameters !== undefined
        ? { parameters: [...handler.openApi.parameters, ...description.parameters] }
        : {}),
      // So do error statuses: a list's filters' 400 stays beside a handler's own 404.
      ...(handler.openApi?.errors !== undefined && description.errors !== undefined ? { errors: [...new Set([...handler.openApi.errors, ...description.errors])] } : {}),
    },
  })
}
