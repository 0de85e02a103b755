import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll } from 'vitest'
import { freshSqlite } from './databases.js'
import { startReference, type RunningReference } from './reference-server.js'

/** Debian's chromium (never a downloaded browser); `CHROMIUM_PATH` points elsewhere. */
export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium'

/** Whether the browser tests can run; when not, the file says why and its tests are reported as skipped. */
export function chromiumAvailable(file: string): boolean {
  const available = existsSync(CHROMIUM_PATH)
  if (!available) console.warn(`${file} skipped: no chromium at ${CHROMIUM_PATH} (set CHROMIUM_PATH)`)
  return available
}

/**
 * Headless chromium with the flags this machine needs: no sandbox (root), and no background
 * networking, component updates or sync (the closed network refuses those connections).
 */
function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  })
}

/** A reference API on a fresh SQLite database and a chromium, for one `describe` block. */
export interface ReferenceInChromium {
  readonly server: RunningReference
  readonly browser: Browser
}

/**
 * Starts the reference API (with `config`) and chromium before the block's tests and closes both after them;
 * read `server` and `browser` inside the tests (they are set once `beforeAll` ran).
 */
export function useReferenceInChromium(config: Parameters<typeof startReference>[1] = {}): ReferenceInChromium {
  const running: { server?: RunningReference; browser?: Browser } = {}
  beforeAll(async () => {
    running.server = await startReference(freshSqlite(), config)
    running.browser = await launchChromium()
  }, 60_000)
  afterAll(async () => {
    await running.browser?.close()
    await running.server?.close()
  })
  return {
    get server(): RunningReference {
      if (running.server === undefined) throw new Error('the reference server is not started yet (read it inside a test)')
      return running.server
    },
    get browser(): Browser {
      if (running.browser === undefined) throw new Error('chromium is not started yet (read it inside a test)')
      return running.browser
    },
  }
}
