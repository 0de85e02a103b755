/**
 * A generated client of an app in the own-routes style (the app's own handlers behind
 * `policies(api, { openApi })`, test/helpers/own-routes-apps.ts): types generated with
 * openapi-typescript from the app's document, a client program
 * (test/openapi-client/own-routes-program.ts) on openapi-fetch's default
 * `createClient<paths>()` type-checked with `tsc --strict` and free of casts, then run
 * against the same app on all four adapters. Every answer is checked against the document,
 * and the program must call every operation it lists.
 */
import { execFile } from 'node:child_process'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import openapiTS, { astToString } from 'openapi-typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OpenApiAnswers } from '../helpers/openapi-answers.js'
import { OWN_ROUTES_APPS, TOKEN, type Running } from '../helpers/own-routes-apps.js'

type Json = Record<string, unknown>
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const PROGRAM_DIR = join(ROOT, 'test', 'openapi-client')
const PROGRAM = join(PROGRAM_DIR, 'own-routes-program.ts')

interface OwnRoutesProgram {
  runOwnRoutesProgram(options: { baseUrl: string; fetch: (input: Request) => Promise<Response>; token: string }): Promise<void>
}
const isProgram = (value: unknown): value is OwnRoutesProgram =>
  typeof value === 'object' && value !== null && typeof (value as Partial<OwnRoutesProgram>).runOwnRoutesProgram === 'function'

const operationsOf = (doc: Json): string[] =>
  Object.entries(doc['paths'] as Record<string, Json>).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))

let generatedFrom: Json
let program: OwnRoutesProgram
let tscOutput = ''

beforeAll(async () => {
  // Generated from the node:http app's document: the other three serve the same one (checked below).
  const app = await OWN_ROUTES_APPS.node()
  try {
    generatedFrom = (await (await fetch(`${app.baseUrl}/api/openapi.json`)).json()) as Json
  } finally {
    await app.close()
  }
  await mkdir(join(PROGRAM_DIR, 'generated'), { recursive: true })
  await writeFile(join(PROGRAM_DIR, 'generated', 'own-routes-schema.d.ts'), astToString(await openapiTS(JSON.stringify(generatedFrom))))
  try {
    await promisify(execFile)(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(PROGRAM_DIR, 'tsconfig.own-routes.json')], { cwd: ROOT })
  } catch (error) {
    tscOutput = String((error as { stdout?: string }).stdout ?? error)
  }
  const loaded: unknown = await import(pathToFileURL(PROGRAM).href)
  if (!isProgram(loaded)) throw new Error('own-routes-program.ts exports no runOwnRoutesProgram')
  program = loaded
}, 180_000)

describe('a client generated from an own-routes app, on openapi-fetch', () => {
  it('type-checks with tsc --strict, with no cast or non-null assertion', async () => {
    expect(tscOutput).toBe('')
    const source = await readFile(PROGRAM, 'utf8')
    const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '')
    expect(code).not.toMatch(/\bas\s+(?!const\b)[A-Za-z{[(]/)
    expect(code).not.toMatch(/[\w)\]]!(?:\.|\[|\)|,|;|\s*$)/m)
    expect(code).toContain('createClient<paths>({')
  })

  for (const [framework, start] of Object.entries(OWN_ROUTES_APPS)) {
    describe(`on ${framework}`, () => {
      let app: Running
      let doc: Json
      beforeAll(async () => {
        app = await start()
        doc = (await (await fetch(`${app.baseUrl}/api/openapi.json`)).json()) as Json
      }, 60_000)
      afterAll(async () => {
        await app?.close()
      })

      it('runs the client program: every operation called, every answer as documented', async () => {
        expect(doc).toEqual(generatedFrom)
        const checker = new OpenApiAnswers(doc)
        const answers: { method: string; path: string; problems: string[] }[] = []
        const checkingFetch = async (request: Request): Promise<Response> => {
          const response = await fetch(request)
          const body = await response.clone().text()
          const path = new URL(request.url).pathname
          answers.push({ method: request.method, path: checker.template(path) ?? path, problems: checker.problems({ method: request.method, path, status: response.status, headers: response.headers, body }) })
          return response
        }
        await program.runOwnRoutesProgram({ baseUrl: app.baseUrl, fetch: checkingFetch, token: TOKEN })
        expect(answers.flatMap((a) => a.problems)).toEqual([])
        const called = new Set(answers.map((a) => `${a.method} ${a.path}`))
        expect(operationsOf(doc).filter((op) => !called.has(op))).toEqual([])
      }, 60_000)
    })
  }
})
