/**
 * The package's name, where a user meets it: package.json's `name` and `bin`, README's install
 * line, and every import specifier and install command in README, docs/ and examples/. They
 * must agree, and none may name `gatehouse` bare: that name on the registry is another
 * project's package, so a doc that says `npm install gatehouse` installs a stranger's code.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; bin: Record<string, string>; exports: Record<string, unknown> }
const NAME = PACKAGE.name

function filesUnder(dir: string, extensions: readonly string[]): string[] {
  const out: string[] = []
  for (const entry of readdirSync(join(ROOT, dir))) {
    const path = join(ROOT, dir, entry)
    if (entry === 'node_modules') continue
    if (statSync(path).isDirectory()) out.push(...filesUnder(relative(ROOT, path), extensions))
    else if (extensions.some((ext) => entry.endsWith(ext))) out.push(path)
  }
  return out
}

const USER_DOCUMENTS = [join(ROOT, 'README.md'), ...filesUnder('docs', ['.md']), ...filesUnder('examples', ['.md', '.ts', '.json'])]

/** Module specifiers in `from '…'`, `import('…')` and `import '…'` forms. */
function specifiers(text: string): string[] {
  return [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)(['"])([^'"\n]+)\1/g)].map((match) => match[2] ?? '')
}

/** The package named by each install command (`npm install x y`, `bun add x`, …): its first argument. */
function installedNames(text: string): string[] {
  return [...text.matchAll(/\b(?:npm (?:install|i|add)|bun add|pnpm add|yarn add)((?: -[-\w]+)*) ([@\w][\w./@-]*)/g)].map((match) => match[2] ?? '')
}

describe('the package name', () => {
  it('is not the registry\'s other `gatehouse`, and the command line carries it too', () => {
    expect(NAME).not.toBe('gatehouse')
    expect(NAME).toMatch(/^[a-z][a-z0-9-]*$/)
    expect(Object.keys(PACKAGE.bin)).toEqual([NAME])
  })

  it('is what README\'s first install line installs', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const install = /## Install\s+```sh\n([^\n]+)\n```/.exec(readme)
    expect(install?.[1]).toBe(`npm install ${NAME}`)
  })

  it('is the only spelling of the package in every import of README, docs/ and examples/', () => {
    const wrong: string[] = []
    let ours = 0
    for (const file of USER_DOCUMENTS) {
      for (const specifier of specifiers(readFileSync(file, 'utf8'))) {
        if (specifier === NAME || specifier.startsWith(`${NAME}/`)) {
          ours++
          const entry = specifier === NAME ? '.' : `./${specifier.slice(NAME.length + 1)}`
          if (!(entry in PACKAGE.exports)) wrong.push(`${relative(ROOT, file)}: ${specifier} is not an entry of package.json's exports`)
        } else if (specifier === 'gatehouse' || specifier.startsWith('gatehouse/')) {
          wrong.push(`${relative(ROOT, file)}: ${specifier}`)
        }
      }
    }
    expect(wrong).toEqual([])
    // The documents do import the package: a broken specifier scan would find none.
    expect(ours).toBeGreaterThan(100)
  })

  it('is the package every install command in README and docs/ installs first', () => {
    const wrong: string[] = []
    for (const file of [join(ROOT, 'README.md'), ...filesUnder('docs', ['.md'])]) {
      for (const name of installedNames(readFileSync(file, 'utf8'))) if (name === 'gatehouse') wrong.push(relative(ROOT, file))
    }
    expect(wrong).toEqual([])
  })

  it('finds a wrong specifier and a wrong install line when there is one', () => {
    expect(specifiers("import { a } from 'gatehouse/kysely'\nconst m = await import('x')")).toEqual(['gatehouse/kysely', 'x'])
    expect(installedNames('npm install gatehouse fastify\nbun add -D gatehouse')).toEqual(['gatehouse', 'gatehouse'])
  })
})
