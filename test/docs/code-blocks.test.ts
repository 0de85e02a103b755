/**
 * Every ```ts / ```typescript block of README.md and docs/ compiles under the repository's
 * own compiler options (strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess, …),
 * each as its own module, with `drf-gatehouse` and `gatehouse/*` resolved to this checkout's
 * source (tsconfig.json's `paths`) and the peers from node_modules. Blocks marked
 * ```ts runnable are also run with tsx and must exit 0.
 *
 * A block is self-contained: names it takes from the surrounding prose are written as
 * `declare const users: UserStore` lines, so a reader sees their types too. There is no
 * opt-out marker.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { promisify } from 'node:util'
import { isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { forbiddenUses } from './api-names.js'
import type { BlockProblem } from './check-blocks.js'
import { documentationBlocks, documentationFiles, extractBlocks, type CodeBlock } from './markdown-blocks.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx')
const RUN_TIMEOUT_MS = 60_000
const run = promisify(execFile)

/** A child process's outcome, as `spawnSync` reported it: the exit status and both outputs (never throws). */
async function runChild(file: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeout: number }): Promise<{ status: number | null; stdout: string; stderr: string; error?: string }> {
  try {
    const { stdout, stderr } = await run(file, [...args], { ...options, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    return { status: 0, stdout, stderr }
  } catch (caught) {
    const failed = caught as { code?: number | string; killed?: boolean; signal?: string; stdout?: string; stderr?: string; message: string }
    const status = typeof failed.code === 'number' ? failed.code : null
    return { status, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '', ...(status === null ? { error: failed.killed === true ? `killed (${failed.signal ?? 'timeout'})` : failed.message } : {}) }
  }
}

const blocks = documentationBlocks(ROOT)
const runnable = blocks.filter((block) => block.runnable)

let work: string
/** Block module path → the block it came from. */
const modules = new Map<string, CodeBlock>()

/** The repository's compiler options, as `tsc -p tsconfig.json` uses them. */
function repositoryOptions(): ts.ParsedCommandLine {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
    },
  })
  if (parsed === undefined) throw new Error('tsconfig.json could not be read')
  return parsed
}

/** `drf-gatehouse` and every `gatehouse/*` entry of tsconfig.json, as absolute source paths. */
function gatehousePaths(options: ts.CompilerOptions): Record<string, string[]> {
  const base = typeof options['pathsBasePath'] === 'string' ? options['pathsBasePath'] : ROOT
  const paths: Record<string, string[]> = {}
  for (const [name, targets] of Object.entries(options.paths ?? {})) {
    if (name === 'drf-gatehouse' || name.startsWith('drf-gatehouse/')) paths[name] = targets.map((target) => (isAbsolute(target) ? target : resolve(base, target)))
  }
  return paths
}

/** `docs/pagination.md` line 125 → `docs_pagination_md_L125.ts`. */
function moduleName(block: CodeBlock): string {
  return `${block.file.replace(/[^A-Za-z0-9]+/g, '_')}_L${block.line}.ts`
}

/** A problem as `docs/pagination.md:127:45 TS2339 <message>` (the Markdown file's own line). */
function describeProblem(problem: BlockProblem): string {
  const code = problem.code === undefined ? '' : `TS${problem.code} `
  if (problem.fileName === undefined || problem.line === undefined || problem.character === undefined) return describeLocation(`${code}${problem.message}`)
  const block = modules.get(resolve(problem.fileName))
  if (block === undefined) return `${problem.fileName}:${problem.line + 1}:${problem.character + 1} ${code}${problem.message}`
  // The block's first line is the line after its opening fence.
  const source = block.code.split('\n')[problem.line]?.trim() ?? ''
  return `${block.file}:${block.line + 1 + problem.line}:${problem.character + 1} ${code}${problem.message}\n    ${source}`
}

/** `drf-gatehouse`, `drf-gatehouse/kysely`, …: the specifiers package.json's `exports` allow. */
function packageEntries(): ReadonlySet<string> {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; exports: Record<string, unknown> }
  return new Set(Object.keys(pkg.exports).map((key) => (key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`)))
}

/** `<module path>:line:col message` → the Markdown file's own line, as `describeProblem` does. */
function describeLocation(problem: string): string {
  const match = /^(.*?):(\d+):(\d+) (.*)$/s.exec(problem)
  const block = match === null ? undefined : modules.get(resolve(match[1] ?? ''))
  if (match === null || block === undefined) return problem
  return `${block.file}:${block.line + Number(match[2])}:${match[3]} ${match[4]}`
}

beforeAll(() => {
  const parsed = repositoryOptions()
  work = mkdtempSync(join(tmpdir(), 'gatehouse-docs-'))
  // Outside the repository, as an app is: peers resolve through a node_modules link, ESM as in a "type": "module" app.
  symlinkSync(join(ROOT, 'node_modules'), join(work, 'node_modules'), 'dir')
  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'docs-blocks', private: true, type: 'module' }))
  writeFileSync(
    join(work, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', paths: gatehousePaths(parsed.options) } }),
  )
  mkdirSync(join(work, 'blocks'))
  for (const block of blocks) {
    const path = join(work, 'blocks', moduleName(block))
    // `export {}` makes even an import-free block a module (its own scope, top-level await).
    writeFileSync(path, `${block.code}\nexport {}\n`)
    modules.set(resolve(path), block)
  }
})

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true })
})

describe('documentation code blocks', () => {
  it('finds the blocks of README.md and of every page under docs/', () => {
    const files = documentationFiles(ROOT)
    expect(files).toContain('README.md')
    expect(files.filter((file) => file.startsWith('docs/')).length).toBeGreaterThan(5)
    expect(blocks.length).toBeGreaterThan(20)
    expect(runnable.length).toBeGreaterThan(0)
  })

  it('type-checks every TypeScript block under the repository compiler options', async () => {
    const parsed = repositoryOptions()
    const options: ts.CompilerOptions = {
      ...parsed.options,
      paths: gatehousePaths(parsed.options),
      noEmit: true,
      declaration: false,
      sourceMap: false,
    }
    // The blocks live outside the repository, so the repository's rootDir/outDir do not apply.
    delete options.rootDir
    delete options.outDir
    // In a child process: the compiler's synchronous minute must not block this worker (see check-blocks.ts).
    const request = join(work, 'check-request.json')
    writeFileSync(request, JSON.stringify({ options, files: [...modules.keys()], entries: [...packageEntries()] }))
    const result = await runChild(TSX, [join(ROOT, 'test', 'docs', 'check-blocks.ts'), request], { cwd: ROOT, timeout: 170_000 })
    expect(result.status, `the block type-check did not finish (${result.error ?? `exit code ${String(result.status)}`}):\n${result.stderr.slice(-3000)}`).toBe(0)
    const problems = (JSON.parse(result.stdout) as BlockProblem[]).map(describeProblem)
    if (problems.length > 0) expect.fail(`${problems.length} problem(s) in documentation blocks:\n${problems.join('\n')}`)
  }, 180_000)

  it.each(runnable.map((block) => [`${block.file}:${block.line}`, block] as const))('runs %s to exit 0', async (_label, block) => {
    const cwd = mkdtempSync(join(work, 'run-'))
    const env: NodeJS.ProcessEnv = { ...process.env, TSX_TSCONFIG_PATH: join(work, 'tsconfig.json') }
    // A runnable block uses its own throwaway stores, never the test run's shared services.
    delete env['DATABASE_URL']
    delete env['REDIS_URL']
    const result = await runChild(TSX, [join(work, 'blocks', moduleName(block))], { cwd, env, timeout: RUN_TIMEOUT_MS })
    // Stack frames in the temporary module are shown as lines of the Markdown file.
    const output = `${result.stdout}\n${result.stderr}`
      .replaceAll(new RegExp(`[^\\s(]*${moduleName(block).replaceAll('.', '\\.')}:(\\d+)(?::(\\d+))?`, 'g'), (_match, line: string, column?: string) =>
        `${block.file}:${block.line + Number(line)}${column === undefined ? '' : `:${column}`}`)
      .trim()
      .split('\n')
      .slice(-30)
      .join('\n')
    const failure = result.error ?? `exit code ${String(result.status)}`
    expect(result.status, `${block.file}:${block.line}: the runnable block failed (${failure}):\n${output}`).toBe(0)
  }, RUN_TIMEOUT_MS + 10_000)
})

describe('the current-API check', () => {
  it('reports deprecated names, deep entries and relative imports, and nothing else', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-names-'))
    try {
      writeFileSync(join(dir, 'lib.ts'), '/** @deprecated use now() */\nexport function old(): number { return 1 }\nexport function now(): number { return 2 }\n')
      writeFileSync(join(dir, 'block.ts'), "import { now, old } from './lib.js'\nimport type {} from 'drf-gatehouse/src/core/policies.js'\nimport type {} from 'drf-gatehouse/kysely'\nexport const a = old() + now()\n")
      const program = ts.createProgram({ rootNames: [join(dir, 'block.ts')], options: { noEmit: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext } })
      const problems = forbiddenUses(program, [join(dir, 'block.ts')], new Set(['drf-gatehouse', 'drf-gatehouse/kysely'])).map((p) => p.slice(p.indexOf('block.ts')))
      expect(problems).toEqual([
        "block.ts:1:26 './lib.js' is a relative import: documentation imports the package by name",
        "block.ts:2:21 'drf-gatehouse/src/core/policies.js' is not a package entry (internal module)",
        "block.ts:4:18 'old' is deprecated",
      ])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('the block extractor', () => {
  it('names the file and line of each block, keeps only TypeScript, and reads the runnable flag', () => {
    const markdown = ['# T', '```sh', 'npm test', '```', '', '```ts', 'const a = 1', '```', '- item', '  ```typescript runnable', '  const b = 2', '  ```', '````ts', '```', '````'].join('\n')
    expect(extractBlocks('x.md', markdown)).toEqual([
      { file: 'x.md', line: 6, code: 'const a = 1', runnable: false },
      { file: 'x.md', line: 10, code: 'const b = 2', runnable: true },
      { file: 'x.md', line: 13, code: '```', runnable: false },
    ])
  })

  it('refuses an unknown flag and an unclosed fence, naming the line', () => {
    expect(() => extractBlocks('x.md', 'a\n```ts runable\nconst a = 1\n```')).toThrow('x.md:2: unknown code block flag runable')
    expect(() => extractBlocks('x.md', 'a\n\n```ts\nconst a = 1')).toThrow('x.md:3: code fence is never closed')
  })
})
