import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  API_ERROR_CODES,
  AuthenticationFailed,
  CONFIGURATION_ERROR_CODES,
  MethodNotAllowed,
  NotAcceptable,
  NotAuthenticated,
  NotFound,
  ParseError,
  PayloadTooLarge,
  PermissionDenied,
  ServiceUnavailable,
  Throttled,
  UnsupportedMediaType,
  ValidationError,
  type ApiError,
} from 'drf-gatehouse'

const ROOT = new URL('../../', import.meta.url).pathname

/** Every non-test .ts file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => join(ROOT, dir, f))
}

/** The `| \`code\` | value |` rows of the table under `heading` in docs/errors.md. */
function docRows(heading: string): Record<string, string> {
  const text = readFileSync(join(ROOT, 'docs/errors.md'), 'utf8')
  const section = text.split(/^## /m).find((s) => s.startsWith(heading)) ?? ''
  const rows: Record<string, string> = {}
  for (const match of section.matchAll(/^\| `([^`]+)` \| (.+) \|$/gm)) rows[match[1] ?? ''] = match[2] ?? ''
  return rows
}

describe('the error-code table', () => {
  it('is what docs/errors.md lists, both tables, row for row', () => {
    expect(docRows('Errors a client sees')).toEqual(Object.fromEntries(Object.entries(API_ERROR_CODES).map(([c, s]) => [c, String(s)])))
    expect(docRows('Configuration errors')).toEqual({ ...CONFIGURATION_ERROR_CODES })
  })

  it('holds every built-in error class with its default code and status', () => {
    const errors: ApiError[] = [
      new ValidationError(),
      new ParseError(),
      new AuthenticationFailed(),
      new NotAuthenticated(),
      new PermissionDenied(),
      new NotFound(),
      new MethodNotAllowed('PUT'),
      new NotAcceptable(),
      new UnsupportedMediaType('text/csv'),
      new PayloadTooLarge(),
      new Throttled(),
      new ServiceUnavailable(),
    ]
    for (const error of errors) expect([error.name, API_ERROR_CODES[error.code as keyof typeof API_ERROR_CODES]]).toEqual([error.name, error.status])
  })

  it('holds every code the source passes to an ApiError', () => {
    const found = new Set<string>()
    const call = /new (?:ValidationError|ParseError|AuthenticationFailed|NotAuthenticated|PermissionDenied|NotFound|NotAcceptable|ServiceUnavailable|PayloadTooLarge)\((?:[^()]|\([^()]*\))*,\s*'([a-z_]+)'\)/g
    for (const file of [...sources('src'), ...sources('examples')]) {
      for (const match of readFileSync(file, 'utf8').matchAll(call)) found.add(match[1] ?? '')
    }
    // The scan sees the codes passed explicitly (not a vacuous pass).
    expect([...found]).toEqual(expect.arrayContaining(['invalid_host', 'too_many_fields', 'authorization']))
    expect([...found].filter((code) => !Object.hasOwn(API_ERROR_CODES, code))).toEqual([])
  })
})
