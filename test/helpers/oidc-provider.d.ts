// The part of oidc-provider's API the test issuer uses (the package ships no types; they live
// in DefinitelyTyped, which lags its releases).
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http'

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>)
    callback(): (req: IncomingMessage, res: ServerResponse) => void
  }
  export const errors: { InvalidTarget: new (description?: string) => Error }
}
