/**
 * Which version of each peer the two ends of test/package/peer-ranges.test.ts install: the
 * oldest version the peer range admits, and the newest release (npm's `latest`, what
 * `npm install <peer>` gives a new app today).
 */

import { runCommand } from '../helpers/run-command.js'

/** The two ends tested. */
export type PeerEnd = 'oldest' | 'newest'

/**
 * The ends test/package/peer-ranges.test.ts installs: both, unless GATEHOUSE_PEER_ENDS names
 * some (`oldest`, `newest` or `oldest,newest`). .ci/run runs both on the machine's Node 20
 * (`npm test`) and on Node 22, and the newest on Node 24, the release the newest peers are made for.
 */
export function peerEndsToTest(setting: string | undefined): readonly PeerEnd[] {
  if (setting === undefined || setting.trim() === '') return ['oldest', 'newest']
  const ends = setting.split(',').map((end) => end.trim())
  for (const end of ends) {
    if (end !== 'oldest' && end !== 'newest') throw new Error(`GATEHOUSE_PEER_ENDS=${setting}: each end is oldest or newest`)
  }
  return [...new Set(ends)] as PeerEnd[]
}

/**
 * The packages npm warns about with EBADENGINE (their `engines` exclude this Node), read from
 * an install's log: `npm warn EBADENGINE   package: 'kysely@0.29.9',`.
 */
export function ebadenginePackages(log: string): string[] {
  const names = [...log.matchAll(/EBADENGINE\s+package: '((?:@[^/'@]+\/)?[^'@]+)@[^']*'/g)].map((match) => match[1] as string)
  return [...new Set(names)].sort()
}

/**
 * The packages README says warn EBADENGINE on Node 20 (they declare Node 22 and run on 20):
 * Kysely 0.29, and cookie 2 (Fastify's inject() helper, light-my-request, asks for it). On
 * Node 22 and later an install warns of none.
 */
export const EBADENGINE_ON_NODE_20: readonly string[] = ['cookie', 'kysely']

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

/**
 * Type packages an app type-checking against a peer installs beside it, by end: Node's types
 * of the oldest Node gatehouse supports at the oldest end, of the running Node at the newest.
 */
export function typesFor(end: PeerEnd, peers: Readonly<Record<string, string>>, nodeMajor: number): Record<string, string> {
  const express = peers['express'] ?? ''
  return {
    '@types/node': end === 'oldest' ? '^20.0.0' : `^${nodeMajor}.0.0`,
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
