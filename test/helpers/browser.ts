import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

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
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  })
}
