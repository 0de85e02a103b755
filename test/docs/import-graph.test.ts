/**
 * The import graph of src/ (every file but tests, every import: static, type-only, re-exports
 * and dynamic `import('./…')`) has no circle, and no arrow runs back up the layers that
 * ARCHITECTURE.md draws. A new circle or back arrow fails here, naming its files.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const SRC = join(ROOT, 'src')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}

/** File (relative to the repository) → the files of src/ it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const file of sourceFiles(SRC)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
    const targets = importedFiles
      .map((imported) => imported.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => relative(ROOT, resolve(dirname(file), name.replace(/\.js$/, '.ts'))))
    graph.set(relative(ROOT, file), [...new Set(targets)])
  }
  return graph
}

/** The strongly connected components of more than one file (Tarjan): each is a circle of imports. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (file: string): void => {
    index.set(file, next)
    low.set(file, next)
    next++
    stack.push(file)
    onStack.add(file)
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue
      if (!index.has(target)) {
        visit(target)
        low.set(file, Math.min(low.get(file)!, low.get(target)!))
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!))
      }
    }
    if (low.get(file) !== index.get(file)) return
    const component: string[] = []
    for (;;) {
      const member = stack.pop()!
      onStack.delete(member)
      component.push(member)
      if (member === file) break
    }
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(component.sort())
  }
  for (const file of graph.keys()) if (!index.has(file)) visit(file)
  return found
}

/**
 * ARCHITECTURE.md's layers, lowest first: a file may import its own layer and those below it.
 * A path is placed by its longest matching prefix.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['src/core/'],
  ['src/crypto/', 'src/passwords/', 'src/stores/', 'src/authentication/', 'src/permissions/', 'src/throttling/', 'src/pagination/', 'src/openapi/'],
  ['src/kysely/', 'src/redis/'],
  ['src/adapters/', 'src/edge/', 'src/views/', 'src/jwt/', 'src/oauth2/', 'src/admin/', 'src/cli/', 'src/testing/', 'src/setup.ts', 'src/index.ts', 'src/http/'],
]

function layerOf(file: string): number {
  let best = { layer: -1, length: -1 }
  LAYERS.forEach((prefixes, layer) => {
    for (const prefix of prefixes) if (file.startsWith(prefix) && prefix.length > best.length) best = { layer, length: prefix.length }
  })
  return best.layer
}

describe('the import graph of src/', () => {
  const graph = importGraph()

  it('reads every file and its imports', () => {
    expect(graph.size).toBeGreaterThan(200)
    expect(graph.get('src/core/api.ts')).toContain('src/core/view.ts')
  })

  it('has no circle of imports', () => {
    expect(circles(graph)).toEqual([])
  })

  it('places every file in a layer', () => {
    expect([...graph.keys()].filter((file) => layerOf(file) === -1)).toEqual([])
  })

  it('has no arrow running back up the layers', () => {
    const upward: string[] = []
    for (const [file, targets] of graph) {
      for (const target of targets) if (layerOf(target) > layerOf(file)) upward.push(`${file} -> ${target}`)
    }
    expect(upward).toEqual([])
  })
})
