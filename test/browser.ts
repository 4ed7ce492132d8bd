// The browser the end-to-end tests drive: Debian's Chromium through playwright-core (never a
// downloaded one), headless, with nothing reaching out to the network on its own.
import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

export const CHROMIUM = '/usr/bin/chromium'

/** The `skip` option of a browser test: false where Chromium is installed (CI installs it). */
export const withoutChromium: string | false = existsSync(CHROMIUM) ? false : `Chromium is not installed at ${CHROMIUM}`

/** Launches Chromium for one test; closed at the test's end. */
export async function launchBrowser (t: { teardown: (fn: () => Promise<void> | void) => void }): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']
  })
  t.teardown(() => browser.close())
  return browser
}
