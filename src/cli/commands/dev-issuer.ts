import { InvalidArgumentError, type Command } from 'commander'
import type { CommandKit } from '../command-kit.js'

interface DevIssuerCommandOptions {
  readonly port: number
  readonly audience: string
  readonly expiresIn: number
}

function wholeNumber(text: string): number {
  const value = Number(text)
  if (!/^\d{1,6}$/.test(text) || !Number.isSafeInteger(value)) throw new InvalidArgumentError('not a whole number')
  return value
}

export function addDevIssuerCommand(program: Command, kit: CommandKit): void {
  program
    .command('dev-issuer')
    .description('FOR DEVELOPMENT ONLY: a local token issuer (discovery, JWKS, a token endpoint minting RS256 access tokens for any subject) to try OAuth 2.0 and JWT with')
    .option('--port <port>', 'the port on 127.0.0.1 (0: a free one)', wholeNumber, 9000)
    .option('--audience <aud>', 'the aud of the tokens it mints', 'gatehouse-dev')
    .option('--expires-in <seconds>', 'how long a token lives', wholeNumber, 3600)
    .action(async (options: DevIssuerCommandOptions) => {
      // Loaded when it runs: the rest of the command line never needs jose.
      const { startDevIssuer } = await import('../dev-issuer.js')
      const issuer = await startDevIssuer(options)
      kit.print('gatehouse dev-issuer: FOR DEVELOPMENT ONLY. It mints a valid token for anyone who asks; its key is new at every start.')
      kit.print(`issuer    ${issuer.issuer}`)
      kit.print(`discovery ${issuer.issuer}/.well-known/openid-configuration`)
      kit.print(`jwks      ${issuer.jwksUri}`)
      kit.print(`a token:  curl -s -X POST ${issuer.tokenEndpoint} -d sub=alice -d 'scope=notes:read notes:write'`)
      kit.print('Ctrl-C stops it.')
      const stop = (): void => void issuer.close().then(() => process.exit(0))
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
    })
}
