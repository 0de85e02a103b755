/**
 * A generated client, as a user of the reference API would build one: types generated with
 * openapi-typescript from the live `/api/openapi.json` (once per run), a client program
 * (test/openapi-client/client-program.ts) on openapi-fetch's default `createClient<paths>()`
 * type-checked with `tsc --strict` and free of casts, then run against the reference API on
 * all four frameworks, each mounted under a prefix, with failed-login throttling on. Every
 * answer the program gets is checked against the document (status, media type, required
 * headers, body schema), and the program must call every operation the document lists.
 */
import { execFile } from 'node:child_process'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import openapiTS, { astToString } from 'openapi-typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FRAMEWORKS } from '../../examples/reference-api/app.js'
import { freshSqlite } from '../helpers/databases.js'
import { OpenApiAnswers } from '../helpers/openapi-answers.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'

type Json = Record<string, unknown>
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const PROGRAM_DIR = join(ROOT, 'test', 'openapi-client')
const PROGRAM = join(PROGRAM_DIR, 'client-program.ts')
const PREFIX = '/v1'
/** Failed-login throttling on, so the document lists (and the program meets) its 429s. */
const CONFIG = { loginFailures: '5/min' }

interface ClientProgram {
  runClientProgram(options: { baseUrl: string; fetch: (input: Request) => Promise<Response> }): Promise<void>
}
const isProgram = (value: unknown): value is ClientProgram =>
  typeof value === 'object' && value !== null && typeof (value as Partial<ClientProgram>).runClientProgram === 'function'

/** What a server's document says beside its paths: the rest must be the same everywhere. */
const withoutServers = (doc: Json): Json => ({ ...doc, servers: null })

const operationsOf = (doc: Json): string[] =>
  Object.entries(doc['paths'] as Record<string, Json>).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))

let generatedFrom: Json
let program: ClientProgram
let tscOutput = ''

beforeAll(async () => {
  const server = await startReference(freshSqlite(), CONFIG, { framework: 'fastify' })
  try {
    generatedFrom = (await (await fetch(`${server.baseUrl}/api/openapi.json`)).json()) as Json
  } finally {
    await server.close()
  }
  await mkdir(join(PROGRAM_DIR, 'generated'), { recursive: true })
  await writeFile(join(PROGRAM_DIR, 'generated', 'schema.d.ts'), astToString(await openapiTS(JSON.stringify(generatedFrom))))
  try {
    await promisify(execFile)(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(PROGRAM_DIR, 'tsconfig.json')], { cwd: ROOT })
  } catch (error) {
    tscOutput = String((error as { stdout?: string }).stdout ?? error)
  }
  const loaded: unknown = await import(pathToFileURL(PROGRAM).href)
  if (!isProgram(loaded)) throw new Error('client-program.ts exports no runClientProgram')
  program = loaded
}, 180_000)

describe('a client generated with openapi-typescript, on openapi-fetch', () => {
  it('type-checks with tsc --strict, with no cast or non-null assertion', async () => {
    expect(tscOutput).toBe('')
    const source = await readFile(PROGRAM, 'utf8')
    const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '')
    expect(code).not.toMatch(/\bas\s+(?!const\b)[A-Za-z{[(]/)
    expect(code).not.toMatch(/[\w)\]]!(?:\.|\[|\)|,|;|\s*$)/m)
    expect(code).not.toMatch(/(^|[^\w.])<[A-Za-z]+>\s*[A-Za-z(]/m)
    expect(code).toContain('createClient<paths>({')
  })

  for (const framework of FRAMEWORKS) {
    describe(`on ${framework}, mounted under ${PREFIX}`, () => {
      let server: RunningReference
      let doc: Json
      const answers: { method: string; path: string; problems: string[] }[] = []

      beforeAll(async () => {
        server = await startReference(freshSqlite(), CONFIG, { framework, app: { prefix: PREFIX } })
        const res = await fetch(`${server.baseUrl}${PREFIX}/api/openapi.json`)
        expect(res.status).toBe(200)
        doc = (await res.json()) as Json
      }, 60_000)
      afterAll(async () => {
        await server?.close()
      })

      it('serves the document the client was generated from, with the prefix as its server; the unprefixed path is a 404', async () => {
        expect(doc['servers']).toEqual([{ url: PREFIX }])
        expect(withoutServers(doc)).toEqual(withoutServers(generatedFrom))
        const unprefixed = await fetch(`${server.baseUrl}/api/whoami/`)
        await unprefixed.body?.cancel()
        expect(unprefixed.status).toBe(404)
      })

      it('runs the client program: every operation called, every answer as documented', async () => {
        const checker = new OpenApiAnswers(doc)
        const base = `${server.baseUrl}${(doc['servers'] as { url: string }[])[0]?.url ?? ''}`
        const checkingFetch = async (request: Request): Promise<Response> => {
          const response = await fetch(request)
          const body = await response.clone().text()
          const path = new URL(request.url).pathname.slice(PREFIX.length)
          answers.push({ method: request.method, path: checker.template(path) ?? path, problems: checker.problems({ method: request.method, path, status: response.status, headers: response.headers, body }) })
          return response
        }
        await program.runClientProgram({ baseUrl: base, fetch: checkingFetch })
        expect(answers.flatMap((a) => a.problems)).toEqual([])
        const called = new Set(answers.map((a) => `${a.method} ${a.path}`))
        expect(operationsOf(doc).filter((op) => !called.has(op))).toEqual([])
      }, 120_000)
    })
  }
})
