/**
 * ARCHITECTURE.md stays true: every file or folder it names in backquotes exists, every folder
 * of src/ is on the map, and the folders it says may not import a framework are the ones
 * eslint.config.js holds to that rule.
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
