// Writing an `ApiResponse` with Express: an Express response is a node:http one, written by
// the kit's node:http writer.
import type { Request, Response } from 'express'
import { DEFAULT_SETTINGS, type ApiResponse } from '../../index.js'
import { writeNodeResponse } from '../../http/index.js'

/**
 * Sends an `ApiResponse` (a view's answer, `paginatedList`'s page) with Express: each
 * `Set-Cookie` on its own line, bare `application/json` as DRF sends it.
 */
export function sendApiResponse(res: Response, response: ApiResponse): void {
  // An Express response is a node:http one: `res.end`, not `res.send` (send would add
  // `; charset=utf-8` and an ETag). Never throws: a header Node refuses is a logged 500.
  writeNodeResponse(res, response, (res.req as Request | undefined)?.gatehouse?.settings ?? DEFAULT_SETTINGS)
}
