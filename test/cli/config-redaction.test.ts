// Issue 45, item 4: a mistyped configuration value stops start-up with a message that names
// the setting but never prints the credentials it holds, in any syntax. Real processes: the
// reference API's `serve` and the library's command line, as an operator runs them.
import { describe, expect, it } from 'vitest'
import { runCli, runReferenceMain } from '../helpers/cli-process.js'

/** The environment without the test run's own service addresses, plus `env`. */
function environment(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env }
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'REDIS_CLUSTER_NODES', 'GATEHOUSE_PASSWORD']) delete base[name]
  return { ...base, ...env }
}

const SECRETS = /S3cretPW|hunter2/

describe('configuration errors print no credentials', () => {
  const serveCases: Array<[string, Record<string, string>, RegExp]> = [
    ['REDIS_CLUSTER_NODES with user info and a bad host', { REDIS_CLUSTER_NODES: 'redis://user:S3cretPW@bad_host!:7000' }, /Redis Cluster node "redis:\/\/\*\*\*@bad_host!:7000"/],
    ['REDIS_CLUSTER_NODES without a scheme', { REDIS_CLUSTER_NODES: '127.0.0.1:7000,user:S3cretPW@bad host:7001' }, /Redis Cluster node "user:\*\*\*@bad host:7001"/],
    ['GATEHOUSE_OAUTH_ISSUER with user info', { DATABASE_URL: 'sqlite::memory:', GATEHOUSE_OAUTH_ISSUER: 'https://client:S3cretPW@idp.example', GATEHOUSE_OAUTH_AUDIENCE: 'api' }, /issuer must be an https: URL.*"https:\/\/\*\*\*@idp\.example"/],
    ['a libpq key=value DATABASE_URL', { DATABASE_URL: 'host=db user=app password=hunter2 dbname=app' }, /DATABASE_URL must be .*"host=db user=app password=\*\*\* dbname=app"/],
    ['a mysql:// DATABASE_URL', { DATABASE_URL: 'mysql://root:hunter2@db/app' }, /DATABASE_URL must be .*"mysql:\/\/\*\*\*@db\/app"/],
    ['a rate with a password in it', { DATABASE_URL: 'sqlite::memory:', GATEHOUSE_LOGIN_FAILURES: 'password=hunter2' }, /invalid throttle rate "password=\*\*\*"/],
    ['a number with a password in it', { DATABASE_URL: 'sqlite::memory:', GATEHOUSE_DB_TIMEOUT_MS: 'redis://u:hunter2@h' }, /GATEHOUSE_DB_TIMEOUT_MS must be an integer >= 2, got "redis:\/\/\*\*\*@h"/],
  ]
  it.each(serveCases)('reference serve: %s', async (_name, env, message) => {
    const run = await runReferenceMain(['serve', '--port', '0'], { env: environment(env), input: '' })
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(message)
    expect(`${run.stdout}${run.stderr}`).not.toMatch(SECRETS)
  })

  const cliCases: Array<[string, readonly string[], Record<string, string>, RegExp]> = [
    ['--database key=value', ['migrate', '--database', 'host=db user=app password=hunter2 dbname=app'], {}, /password=\*\*\*/],
    ['DATABASE_URL with a query password', ['migrate'], { DATABASE_URL: 'mysql://db/app?sslmode=require&password=hunter2' }, /password=\*\*\*/],
    ['REDIS_CLUSTER_NODES with user info', ['deactivate-user', 'alice', '--database', 'sqlite::memory:'], { GATEHOUSE_PASSWORD: 'a long enough password 1', REDIS_CLUSTER_NODES: 'rediss://user:S3cretPW@bad_host!:7000' }, /\*\*\*@bad_host!/],
  ]
  it.each(cliCases)('library CLI: %s', async (_name, args, env, message) => {
    const run = await runCli(args, { env: environment(env), input: '' })
    expect(run.code).not.toBe(0)
    expect(run.stderr).toMatch(message)
    expect(`${run.stdout}${run.stderr}`).not.toMatch(SECRETS)
  })
})
