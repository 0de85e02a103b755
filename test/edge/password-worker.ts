/** Entry for workerd: `POST /` with the ops as JSON answers the outcomes as JSON. */
import { runPasswordOps, type PasswordOp } from './password-ops.js'

export default {
  async fetch(request: Request): Promise<Response> {
    const ops = (await request.json()) as PasswordOp[]
    return Response.json(await runPasswordOps(ops))
  },
}
