/**
 * Which version of each peer the two ends of test/package/peer-ranges.test.ts install: the
 * oldest version the peer range admits, and the newest release (npm's `latest`, what
 * `npm install <peer>` gives a new app today).
 */

import { runCommand } from '../helpers/run-command.js'

/** The two ends tested. */
export type PeerEnd = 'oldest' | 'newest'

/** The lowest version `range` admits, for the ranges package.json uses (`^x.y.z`, `>=x.y.z`, joined by `||`). */
export function oldestIn(range: string): string {
  const lows = range.split('||').map((alternative) => {
    const match = /^\s*(?:\^|>=|~)?\s*(\d+)\.(\d+)\.(\d+)\s*$/.exec(alternative)
    if (match === null) throw new Error(`peer range ${JSON.stringify(range)}: cannot read "${alternative.trim()}"`)
    return [Number(match[1]), Number(match[2]), Number(match[3])] as const
  })
  lows.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2])
  return (lows[0] as readonly number[]).join('.')
}

/**
 * The newest version to install of `name`, as an npm spec. `latest`, except where the latest
 * release cannot run on this Node: better-sqlite3 13 needs Node 22 (on Node 20 its addon does
 * not load), so on older Node the newest 12.x.
 */
export function newestSpec(name: string, nodeMajor: number): string {
  if (name === 'better-sqlite3' && nodeMajor < 22) return '^12.0.0'
  return 'latest'
}

/** Type packages an app type-checking against a peer installs beside it, by end. */
export function typesFor(end: PeerEnd, peers: Readonly<Record<string, string>>): Record<string, string> {
  const express = peers['express'] ?? ''
  return {
    '@types/node': '^20.0.0',
    // @types/express follows Express's major.
    '@types/express': end === 'oldest' && express.startsWith('4.') ? '^4.17.21' : 'latest',
  }
}

/** Orders `x.y.z` versions (npm view lists a range's versions in no particular order). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map(Number)
  const pb = b.split(/[.-]/).map(Number)
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0)
    if (d !== 0) return d
  }
  return 0
}

/**
 * Where prebuild-install (which better-sqlite3's install script runs) looks for a cached
 * binary before downloading it: `<npm cache>/_prebuilds/<6 hex of sha512(url)>-<file name>`.
 * A binary compiled once is put there, so the next install of that version does not compile.
 */
export function prebuildUrl(version: string, abi: string, platform: string, arch: string): string {
  return `https://github.com/WiseLibs/better-sqlite3/releases/download/v${version}/better-sqlite3-v${version}-node-v${abi}-${platform}-${arch}.tar.gz`
}

/** The exact version `npm view name@spec version` resolves to: one version, or the newest of a list. */
export async function resolveVersion(name: string, spec: string, cwd: string): Promise<string> {
  const view = await runCommand('npm', ['view', `${name}@${spec}`, 'version', '--json', '--no-audit', '--no-fund', '--loglevel=error'], { cwd })
  if (view.code !== 0) throw new Error(`npm view ${name}@${spec}: ${view.stderr}`)
  const parsed = JSON.parse(view.stdout) as string | string[]
  const version = Array.isArray(parsed) ? [...parsed].sort(compareVersions).at(-1) : parsed
  if (version === undefined) throw new Error(`npm view ${name}@${spec}: no version`)
  return version
}
