import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { buildApp, type BuildAppOptions } from '../../examples/reference-api/app.js'
import { openReferenceContext, type ReferenceConfig, type ReferenceContext } from '../../examples/reference-api/context.js'
import type { TestDatabase } from './databases.js'

/**
 * The cheap scrypt cost tests run the reference API at (the library default, OWASP's
 * N=2^17, takes about 0.3 s per Basic check, and the suites make thousands).
 */
export const TEST_SCRYPT = Object.freeze({ N: 2 ** 12, r: 8, p: 1 })

/** A reference API listening on a real loopback socket, on its own fresh database. */
export interface RunningReference {
  readonly baseUrl: string
  readonly ref: ReferenceContext
  readonly app: FastifyInstance
  close(): Promise<void>
}

/**
 * Migrates and seeds `database`, then serves the reference API on 127.0.0.1 at a free port.
 * `config` adds reference settings (Redis, proxies; scrypt defaults to `TEST_SCRYPT`); `dropDatabase: false` keeps the
 * database for another instance sharing it.
 */
export async function startReference(
  database: TestDatabase,
  config: Omit<ReferenceConfig, 'databaseUrl'> = {},
  { dropDatabase = true, app: appOptions = {} }: { readonly dropDatabase?: boolean; readonly app?: BuildAppOptions } = {},
): Promise<RunningReference> {
  const ref = await openReferenceContext({ scrypt: TEST_SCRYPT, ...config, databaseUrl: database.url })
  const app = await buildApp(ref, appOptions)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    ref,
    app,
    close: async () => {
      await app.close()
      await ref.close()
      if (dropDatabase) await database.drop()
    },
  }
}
