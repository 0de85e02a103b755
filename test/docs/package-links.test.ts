/**
 * The documentation ships in the package (package.json `files`: README.md, docs/), so it
 * must not send a reader to files the package does not contain: the repository's tests,
 * benchmarks, scripts and example app, or the project's internal notes (spec, design,
 * DRF-behaviour catalogues). The README may name repository paths only in the sections
 * written for someone with a clone (the reference API demo and Development).
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { documentationFiles } from './markdown-blocks.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
/** README headings (level 2) under which a clone of the repository is assumed. */
const CLONE_SECTIONS = /^## .*(reference API|Development)/i

/** Internal project documents and their section numbers: never part of the package. */
const INTERNAL_REFERENCES: readonly RegExp[] = [
  /\b(reference-api|ecosystem|drf-behaviors|spec|design|style)\.md\b/,
  /\bspec(?:'s)?\s+§?\d+(\.\d+)*/i,
  /§\s*\d/,
  /(^|[\s`'"(])\/?(work\/)?shared\//,
]
/** Paths that exist only in a clone of the repository (or, for test files, not in the tarball). */
const REPOSITORY_PATH = /(^|[\s`'"(])\.?\/?((test|bench|scripts|examples|src|\.ci)\/[\w./*-]+|reference-api\/[\w./-]*|BENCHMARKS\.md)/

/** True when `path` (relative to the root) is in the published package. */
function shipped(path: string): boolean {
  if (['README.md', 'LICENSE', 'CHANGELOG.md', 'package.json'].includes(path)) return true
  if (path === 'docs' || path.startsWith('docs/')) return true
  return path.startsWith('src/') && !/\.test\.ts$/.test(path)
}

interface Finding {
  readonly where: string
  readonly text: string
}

/** The lines of a page a user without a clone reads (the README's clone sections left out), fenced code included. */
function userLines(file: string): Array<{ line: number; text: string }> {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n')
  const result: Array<{ line: number; text: string }> = []
  let cloneSection = false
  for (const [index, text] of lines.entries()) {
    if (file === 'README.md' && /^## /.test(text)) cloneSection = CLONE_SECTIONS.test(text)
    if (!cloneSection) result.push({ line: index + 1, text })
  }
  return result
}

describe('documentation pointers', () => {
  const files = documentationFiles(ROOT)

  it('every relative Markdown link names a file the package ships', () => {
    const broken: Finding[] = []
    for (const file of files) {
      const lines = readFileSync(join(ROOT, file), 'utf8').split('\n')
      for (const [index, text] of lines.entries()) {
        for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
          const target = match[1] ?? ''
          if (/^[a-z]+:/i.test(target) || target.startsWith('#')) continue
          const path = relative(ROOT, resolve(ROOT, dirname(file), target.split('#')[0] ?? ''))
          if (!existsSync(join(ROOT, path)) || !shipped(path)) broken.push({ where: `${file}:${index + 1}`, text: target })
        }
      }
    }
    expect(broken).toEqual([])
  })

  it('no page names internal documents or files only a clone of the repository has', () => {
    const findings: Finding[] = []
    for (const file of files) {
      for (const { line, text } of userLines(file)) {
        for (const pattern of [...INTERNAL_REFERENCES, REPOSITORY_PATH]) {
          const match = pattern.exec(text)
          if (match !== null) findings.push({ where: `${file}:${line}`, text: match[0].trim() })
        }
      }
    }
    expect(findings).toEqual([])
  })
})
