/**
 * Every `page.md#section` link of README.md and docs/ names a heading that page has, so the
 * task map (docs/index.md) and the cross-references keep pointing at a section when pages are
 * cut down or headings renamed. Anchors are GitHub's: the heading's text lower-cased, every
 * character but letters, digits, spaces, `-` and `_` dropped, spaces made `-`, and `-1`, `-2`, …
 * added to repeats. Headings inside fenced code (a shell comment `# …`) are not headings.
 */
import { readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { documentationFiles } from './markdown-blocks.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** The anchors GitHub gives the headings of one Markdown text. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  let fence: string | null = null
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1]
    if (marker !== undefined) {
      if (fence === null) fence = marker
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null
      continue
    }
    if (fence !== null) continue
    const heading = /^#{1,6} (.*)$/.exec(line)?.[1]
    if (heading === undefined) continue
    const slug = heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replaceAll(' ', '-')
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return anchors
}

describe('section links', () => {
  it('reads anchors as GitHub writes them', () => {
    const anchors = headingAnchors(['# Pagination', '## Ordering filter (`?ordering=`)', "## DRF's routing rules: `drfRouting`", '```sh', '# not a heading', '```', '## Ordering filter (`?ordering=`)'].join('\n'))
    expect([...anchors]).toEqual(['pagination', 'ordering-filter-ordering', 'drfs-routing-rules-drfrouting', 'ordering-filter-ordering-1'])
  })

  it('every page.md#anchor link of README.md and docs/ names a heading of that page', () => {
    const files = documentationFiles(ROOT)
    const anchors = new Map(files.map((file) => [file, headingAnchors(readFileSync(join(ROOT, file), 'utf8'))]))
    const broken: string[] = []
    let checked = 0
    for (const file of files) {
      for (const [index, line] of readFileSync(join(ROOT, file), 'utf8').split('\n').entries()) {
        for (const match of line.matchAll(/\]\(([^)\s#]*)#([^)\s]+)\)/g)) {
          const target = match[1] === '' ? file : relative(ROOT, resolve(ROOT, dirname(file), match[1] ?? ''))
          const known = anchors.get(target)
          if (known === undefined) continue // not a documentation page (package-links.test.ts checks the file)
          checked += 1
          if (!known.has(match[2] ?? '')) broken.push(`${file}:${index + 1} ${target}#${match[2] ?? ''}`)
        }
      }
    }
    expect(checked).toBeGreaterThan(20)
    expect(broken).toEqual([])
  })
})
