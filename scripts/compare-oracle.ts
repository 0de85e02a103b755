/**
 * Sends the same requests to gatehouse's reference API and to the DRF oracle and
 * prints every difference in status, WWW-Authenticate, Allow, Retry-After,
 * Content-Type and (masked) JSON body. Exit status 1 when they differ.
 *
 *   bash ../shared/oracle-drf/run.sh 8101 &          # fresh oracle (shared/ beside the repo)
 *   DATABASE_URL=sqlite:/tmp/x.sqlite3 PORT=8102 npm start &   # fresh reference API
 *   npx tsx scripts/compare-oracle.ts --ours http://127.0.0.1:8102 --oracle http://127.0.0.1:8101
 *
 * Both servers must start from a fresh database: some requests change state
 * (remote-user creates users, the token endpoint creates tokens).
 */
import { isDeepStrictEqual } from 'node:util'
import { Command } from 'commander'
import { comparable, exchange, type SessionCookies } from '../test/oracle/http-exchange.js'
import { IDENTITY_REQUESTS, SESSION_REQUESTS, TOKEN_REQUESTS } from '../test/oracle/requests.js'

const GROUPS = { identity: IDENTITY_REQUESTS, tokens: TOKEN_REQUESTS, sessions: SESSION_REQUESTS }

const program = new Command()
  .requiredOption('--ours <url>', 'base URL of gatehouse (reference API)')
  .requiredOption('--oracle <url>', 'base URL of the DRF oracle')
  .option('--groups <list>', `comma-separated groups (${Object.keys(GROUPS).join(', ')})`, Object.keys(GROUPS).join(','))
  .option('--verbose', 'print every request, not only differences')
  .parse()

const options = program.opts<{ ours: string; oracle: string; groups: string; verbose?: boolean }>()
const sessions = new Map<string, SessionCookies | null>()
let differences = 0
let total = 0
for (const group of options.groups.split(',')) {
  const requests = GROUPS[group.trim() as keyof typeof GROUPS]
  if (requests === undefined) {
    console.error(`unknown group "${group}"`)
    process.exit(2)
  }
  for (const request of requests) {
    total++
    let ours: Record<string, unknown>
    let oracle: Record<string, unknown>
    try {
      ours = comparable(await exchange(options.ours, request, sessions), request)
      oracle = comparable(await exchange(options.oracle, request, sessions), request)
    } catch (error) {
      differences++
      console.log(`ERROR ${request.name}: ${(error as Error).message}`)
      continue
    }
    if (isDeepStrictEqual(ours, oracle)) {
      if (options.verbose === true) console.log(`same  ${request.name}: ${JSON.stringify(ours)}`)
      continue
    }
    differences++
    console.log(`DIFF  ${request.name} (${request.method} ${request.path})`)
    for (const key of Object.keys(oracle)) {
      if (!isDeepStrictEqual(ours[key], oracle[key])) {
        console.log(`      ${key}: ours ${JSON.stringify(ours[key])}  oracle ${JSON.stringify(oracle[key])}`)
      }
    }
  }
}
console.log(`${total} requests, ${differences} differences`)
process.exit(differences === 0 ? 0 : 1)
