import { realpathSync } from 'node:fs'
import { basename, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Command, CommanderError } from 'commander'
import { defaultPasswordValidators, validatePassword } from 'drf-gatehouse'
import { openReferenceContext, referenceConfigFromEnv, type ReferenceContext } from './context.js'
import { runtimeServerName } from './runtime-server.js'

/** A command-line failure: printed as `gatehouse: <message>` on stderr, exit code 1. */
export class CommandError extends Error {}

/** A unique-constraint failure from SQLite (`SQLITE_CONSTRAINT_UNIQUE`) or PostgreSQL (`23505`). */
function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505'
}

/** Runs `fn` with an opened (migrated, seeded) reference context, closing it afterwards. */
async function withContext<T>(fn: (ref: ReferenceContext) => Promise<T>): Promise<T> {
  const ref = await openReferenceContext({ databaseUrl: process.env['DATABASE_URL'] })
  try {
    return await fn(ref)
  } finally {
    await ref.close()
  }
}

/** Serves the reference API until SIGTERM/SIGINT, then drains in-flight requests and closes the pools. */
async function serve(options: { port?: string; host: string }): Promise<void> {
  const port = Number(options.port ?? process.env['PORT'] ?? 8000)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CommandError(`invalid port "${options.port}"`)
  // Loaded here, not at the top: the token and user commands never need the HTTP stack.
  const { FRAMEWORKS, startApp } = await import('./app.js')
  // Bun and Deno serve Hono on their own server by default (`npm run start:bun`, `start:deno`).
  const runtime = runtimeServerName()
  const framework = process.env['GATEHOUSE_FRAMEWORK'] === undefined || process.env['GATEHOUSE_FRAMEWORK'] === '' ? (runtime === null ? 'fastify' : 'hono') : process.env['GATEHOUSE_FRAMEWORK']
  const known = FRAMEWORKS.find((f) => f === framework)
  if (known === undefined) throw new CommandError(`GATEHOUSE_FRAMEWORK must be one of ${FRAMEWORKS.join(', ')}, got "${framework}"`)
  // DATABASE_URL, REDIS_URL or REDIS_CLUSTER_NODES (sessions + throttle counters in Redis), GATEHOUSE_NUM_PROXIES.
  const ref = await openReferenceContext(referenceConfigFromEnv())
  const app = await startApp(known, ref, { port, host: options.host }, { logger: process.env['LOG_LEVEL'] !== undefined })
  const address = app.address
  const on = runtime === null ? known : `${known} on ${runtime}`
  console.log(`gatehouse reference API listening on ${address} (${ref.database.dialect}${ref.redis === null ? '' : ref.redis.connection.isCluster ? ' + redis cluster' : ' + redis'}, ${on})`)
  console.log(
    ref.jwt === null
      ? 'gatehouse: JWT routes (/api/jwt/...) off; set GATEHOUSE_JWT_SIGNING_KEY (32+ bytes; a Django SECRET_KEY keeps simplejwt tokens valid) to turn them on'
      : ref.jwt.settings.publicJwk === null
        ? `gatehouse: JWT routes on (/api/jwt/, /api/jwt/refresh/, /api/jwt/verify/, /api/jwt/blacklist/, /api/schemes/jwt/), ${ref.jwt.settings.algorithm} with GATEHOUSE_JWT_SIGNING_KEY`
        : `gatehouse: JWT routes on (/api/jwt/, /api/jwt/refresh/, /api/jwt/verify/, /api/jwt/blacklist/, /api/jwt/jwks/, /api/schemes/jwt/), ${ref.jwt.settings.algorithm} with the private key in GATEHOUSE_JWT_SIGNING_KEY`,
  )
  let closing = false
  const shutdown = (signal: string): void => {
    if (closing) return
    closing = true
    console.log(`gatehouse: ${signal} received, finishing in-flight requests`)
    app
      .close()
      .then(() => ref.close())
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        console.error('gatehouse: shutdown failed:', error)
        process.exit(1)
      })
  }
  process.on('SIGTERM', () => shutdown('SIGTERM'))
  process.on('SIGINT', () => shutdown('SIGINT'))
}

/** The `drf-gatehouse` command line. */
export function buildProgram(): Command {
  const program = new Command('drf-gatehouse')
    .description('gatehouse reference API and token tools (DATABASE_URL selects the database)')
    .exitOverride()
  program
    .command('serve')
    .description('migrate, seed an empty database, and serve the reference API')
    .option('-p, --port <port>', 'port to listen on (default: $PORT or 8000)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .action(serve)
  program
    .command('migrate')
    .description('apply schema migrations (and seed an empty database)')
    .action(async () => {
      await withContext(async (ref) => console.log(`migrated (${ref.database.dialect})`))
    })
  program
    .command('create-token')
    .description('print the token of a user, creating it if missing (DRF drf_create_token)')
    .argument('<username>')
    .option('-r, --reset', 'regenerate the token (for a leaked one)')
    .action(async (username: string, options: { reset?: boolean }) => {
      await withContext(async (ref) => {
        const user = await ref.users.findByUsername(username)
        if (user === null) throw new CommandError(`Cannot create the Token: user ${username} does not exist`)
        const token = options.reset === true ? await ref.tokens.regenerate(user.id) : await ref.tokens.getOrCreate(user.id)
        console.log(`Generated token ${token.key} for user ${username}`)
      })
    })
  program
    .command('create-user')
    .description('create a user; the password comes from --password or the GATEHOUSE_PASSWORD variable, checked by the password validators')
    .argument('<username>')
    .option('--password <password>', 'password (prefer GATEHOUSE_PASSWORD: arguments show in process lists)')
    .option('--staff', 'make the user staff')
    .option('--inactive', 'create the user inactive')
    .option('--skip-password-validation', "store the password even if the password validators refuse it (Django's \"Bypass password validation\")")
    .action(async (username: string, options: { password?: string; staff?: boolean; inactive?: boolean; skipPasswordValidation?: boolean }) => {
      const password = options.password ?? process.env['GATEHOUSE_PASSWORD'] ?? null
      if (username.length === 0 || username.length > 150) throw new CommandError('username must be 1 to 150 characters')
      await withContext(async (ref) => {
        if ((await ref.users.findByUsername(username)) !== null) throw new CommandError(`user ${username} already exists`)
        // As the library's create-user and Django's createsuperuser: the password's rules before anything is written.
        if (password !== null && options.skipPasswordValidation !== true) {
          const messages = await validatePassword(password, { username }, ref.users.passwordValidators ?? defaultPasswordValidators())
          if (messages.length > 0) {
            for (const message of messages) console.error(message)
            throw new CommandError(`user ${username} not created: the password validators refused the password (--skip-password-validation stores it anyway)`)
          }
        }
        let user
        try {
          user = await ref.users.create({
            username,
            password,
            isStaff: options.staff === true,
            isActive: options.inactive !== true,
          })
        } catch (error) {
          // Another process created the same name between the check and the insert.
          if (isUniqueViolation(error)) throw new CommandError(`user ${username} already exists`)
          throw error
        }
        console.log(`Created user ${user.username} (id ${user.id})${password === null ? ' with no usable password' : ''}`)
      })
    })
  return program
}

/** Runs the command line; returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    await buildProgram().parseAsync([...argv], { from: 'user' })
    return 0
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode
    console.error(`gatehouse: ${error instanceof Error ? error.message : String(error)}`)
    return 1
  }
}

/**
 * True when this module is the program being run: `tsx reference-api/main.ts`,
 * `node dist/reference-api/main.js`, or the `drf-gatehouse` bin (`bin/drf-gatehouse.js`, which
 * imports the compiled file, reached directly or through the `node_modules/.bin`
 * symlink that `npx drf-gatehouse` runs). Paths are compared after resolving symlinks.
 */
function isEntryPoint(): boolean {
  const script = process.argv[1]
  if (script === undefined) return false
  let real: string
  try {
    real = realpathSync(script)
  } catch {
    return false
  }
  if (real === realpathSync(fileURLToPath(import.meta.url))) return true
  return basename(real) === 'drf-gatehouse.js' && basename(dirname(real)) === 'bin'
}

if (isEntryPoint()) {
  const code = await main(process.argv.slice(2))
  if (code !== 0) process.exit(code)
}
