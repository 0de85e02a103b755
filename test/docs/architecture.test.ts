/**
 * ARCHITECTURE.md stays true: every file or folder it names in backquotes exists, every folder
 * of src/ is on the map, and the folders it says may not import a framework are the ones
 * eslint.config.js holds to that rule. The four adapters keep one shape: the same file for the
 * same job, an index.ts that only re-exports, and imports of the public adapter kit only. A value-or-promise is told apart in one place
 * (src/core/maybe-promise.ts), and the policy pipeline keeps no state between requests.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const MAP = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8')

/** Backquoted tokens that are repository paths: `src/core/view.ts`, `test/oracle/`, `eslint.config.js`. */
function pathsNamed(markdown: string): string[] {
  const tokens = [...markdown.matchAll(/`([^`\s]+)`/g)].map((match) => match[1] ?? '')
  return tokens.filter((token) => /^[\w.-]+(\/[\w.-]*)+$/.test(token) || /^[\w-]+(\.[\w-]+)*\.(ts|js|json|md)$/.test(token))
}

describe('ARCHITECTURE.md', () => {
  it('names only files and folders that exist', () => {
    const named = pathsNamed(MAP)
    expect(named.length).toBeGreaterThan(40)
    expect(named.filter((path) => !existsSync(join(ROOT, path)))).toEqual([])
  })

  it('puts every folder of src/ on the map', () => {
    const folders = readdirSync(join(ROOT, 'src'), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => `src/${entry.name}/`)
    const named = new Set(pathsNamed(MAP).map((path) => (path.endsWith('/') ? path : path.replace(/[^/]+$/, ''))))
    expect(folders.filter((folder) => !named.has(folder))).toEqual([])
  })

  it("names as framework-free exactly the folders eslint.config.js holds to that rule", () => {
    const config = readFileSync(join(ROOT, 'eslint.config.js'), 'utf8')
    const line = /files: \[([^\]]*)\],\s*rules: \{\s*'no-restricted-imports': \['error', \{ patterns: \['fastify'/.exec(config)
    expect(line).not.toBeNull()
    const linted = [...(line?.[1] ?? '').matchAll(/'(src\/[\w-]+)\/\*\*'/g)].map((match) => `${match[1]}/`)
    expect(linted.length).toBeGreaterThan(3)
    const rule = MAP.split('\n').join(' ').match(/\*\*The core and the features never import a framework\*\*:(.*?)may not import/)?.[1] ?? ''
    expect(pathsNamed(rule).sort()).toEqual(linted.sort())
  })
})

/** The file each adapter gives each job (ARCHITECTURE.md, step 1), the same in all four. */
const ADAPTER_FILES = ['index.ts', 'request.ts', 'reply.ts', 'views.ts', 'routing.ts', 'middleware.ts', 'errors.ts', 'openapi-routes.ts']
const ADAPTERS: Readonly<Record<string, readonly string[]>> = {
  fastify: ADAPTER_FILES,
  express: ADAPTER_FILES,
  hono: ADAPTER_FILES,
  'node-http': ADAPTER_FILES,
}

/** The package's own modules an adapter may import: the root entry and the adapter kit (drf-gatehouse/http). */
const ADAPTER_KIT = ['../../index.js', '../../http/index.js']

/** Every module specifier of `code`: static imports and re-exports (`import type` too), and `import('…')`. */
function specifiers(code: string): string[] {
  const fromClauses = [...code.matchAll(/^\s*(?:import|export)\b[^'";]*?\bfrom\s*'([^']+)'/gm)].map((match) => match[1] ?? '')
  const bare = [...code.matchAll(/^\s*import\s*'([^']+)'/gm)].map((match) => match[1] ?? '')
  const dynamic = [...code.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)].map((match) => match[1] ?? '')
  return [...fromClauses, ...bare, ...dynamic]
}

describe('the adapters', () => {
  for (const [adapter, files] of Object.entries(ADAPTERS)) {
    const folder = join(ROOT, 'src/adapters', adapter)

    it(`${adapter} has a file per job`, () => {
      expect(files.filter((file) => !existsSync(join(folder, file)))).toEqual([])
    })

    it(`${adapter} imports only the public adapter kit (the root entry, drf-gatehouse/http) and its own folder`, () => {
      const files = readdirSync(folder).filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
      const imports = files.flatMap((file) => specifiers(readFileSync(join(folder, file), 'utf8')).map((specifier) => `${file}: ${specifier}`))
      expect(imports.length).toBeGreaterThan(files.length)
      // Packages (fastify, node:http) are the framework's; a relative path is the kit or the folder itself.
      const outside = imports.filter((line) => {
        const specifier = line.slice(line.indexOf(': ') + 2)
        return specifier.startsWith('.') && !ADAPTER_KIT.includes(specifier) && !/^\.\/[\w-]+\.js$/.test(specifier)
      })
      expect(outside).toEqual([])
      expect(imports.some((line) => line.endsWith(': ../../http/index.js'))).toBe(true)
    })

    it(`${adapter}'s index.ts only re-exports`, () => {
      const code = readFileSync(join(folder, 'index.ts'), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .split('\n')
        .filter((line) => line.trim() !== '' && !line.trim().startsWith('//'))
      expect(code.length).toBeGreaterThan(2)
      expect(code.filter((line) => !/^export (type )?\{[^}]*\} from '\.\/[\w-]+\.js'$/.test(line))).toEqual([])
    })
  }
})

/** Every source file of src/ (tests left out), relative to the repository. */
function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : []
  })
}

describe('a value or a promise', () => {
  it('is told apart only by src/core/maybe-promise.ts (isPromise, thenMaybe, promiseOf)', () => {
    const asking = sourceFiles('src').filter((file) => readFileSync(join(ROOT, file), 'utf8').includes('instanceof Promise'))
    expect(asking).toEqual(['src/core/maybe-promise.ts'])
  })

  it('runs through src/core/pipeline.ts, which keeps no state of its own between requests', () => {
    const code = readFileSync(join(ROOT, 'src/core/pipeline.ts'), 'utf8')
    expect(code.match(/^(let|var) /gm)).toBeNull()
    expect(code.match(/^(export )?const \w+(: [^=]+)? = new /gm)).toBeNull()
  })
})

