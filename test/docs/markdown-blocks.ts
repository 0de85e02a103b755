/**
 * Finds the TypeScript code blocks of the documentation (README.md and docs/**.md), so a
 * test can type-check them and run the ones marked `runnable`.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

/** One fenced ```ts / ```typescript block. */
export interface CodeBlock {
  /** The Markdown file, relative to the repository root (`docs/pagination.md`). */
  readonly file: string
  /** 1-based line of the opening fence. */
  readonly line: number
  /** The block's text, without the fences (indentation of the fence removed). */
  readonly code: string
  /** Marked ```ts runnable: executed, and must exit 0. */
  readonly runnable: boolean
}

const TS_LANGUAGES = new Set(['ts', 'typescript'])
/** Words allowed after the language. Anything else is refused, so a typo ("runable") never silently skips a run. */
const KNOWN_FLAGS = new Set(['runnable'])

/** The Markdown files users read: README.md and every .md under docs/, found anew on each run. */
export function documentationFiles(root: string): string[] {
  const found: string[] = []
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.md')) found.push(relative(root, path))
    }
  }
  walk(join(root, 'docs'))
  return ['README.md', ...found.sort()]
}

/**
 * Every TypeScript block of one Markdown text. Fences follow CommonMark: three or more
 * backticks or tildes, closed by a fence of the same character at least as long; the
 * block's indentation (inside a list item) is removed from its lines.
 *
 * @throws Error naming the file and line for an unclosed fence or an unknown flag
 */
export function extractBlocks(file: string, markdown: string): CodeBlock[] {
  const lines = markdown.split(/\r?\n/)
  const blocks: CodeBlock[] = []
  let open: { indent: number; fence: string; line: number; language: string; flags: string[]; body: string[] } | null = null
  for (const [index, text] of lines.entries()) {
    if (open === null) {
      const start = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)(.*)$/.exec(text)
      if (start === null) continue
      const [, indent = '', fence = '', language = '', rest = ''] = start
      open = { indent: indent.length, fence, line: index + 1, language: language.toLowerCase(), flags: rest.trim().split(/\s+/).filter(Boolean), body: [] }
      continue
    }
    const end = /^\s*(`{3,}|~{3,})\s*$/.exec(text)
    if (end?.[1] !== undefined && end[1][0] === open.fence[0] && end[1].length >= open.fence.length) {
      if (TS_LANGUAGES.has(open.language)) {
        const unknown = open.flags.filter((flag) => !KNOWN_FLAGS.has(flag))
        if (unknown.length > 0) {
          throw new Error(`${file}:${open.line}: unknown code block flag ${unknown.join(', ')} (known: ${[...KNOWN_FLAGS].join(', ')})`)
        }
        blocks.push({ file, line: open.line, code: open.body.join('\n'), runnable: open.flags.includes('runnable') })
      }
      open = null
      continue
    }
    // Remove at most the fence's own indentation, as CommonMark does.
    const strip = Math.min(open.indent, /^\s*/.exec(text)?.[0].length ?? 0)
    open.body.push(text.slice(strip))
  }
  if (open !== null) throw new Error(`${file}:${open.line}: code fence is never closed`)
  return blocks
}

/** Every TypeScript block of README.md and docs/. */
export function documentationBlocks(root: string): CodeBlock[] {
  return documentationFiles(root).flatMap((file) => extractBlocks(file, readFileSync(join(root, file), 'utf8')))
}

/** The TypeScript blocks of the section under `heading` of a page (`file` names it in errors), up to the next heading of any level. */
export function sectionBlocks(page: string, heading: string, file = 'README.md'): string[] {
  const lines = page.split('\n')
  const start = lines.indexOf(heading)
  if (start === -1) throw new Error(`${file} has no "${heading}" heading`)
  let end = lines.findIndex((line, index) => index > start && /^#{1,6} /.test(line))
  if (end === -1) end = lines.length
  return extractBlocks(file, lines.slice(start, end).join('\n')).map((block) => block.code)
}
