import { existsSync } from 'node:fs';
import { Browser, chromium } from 'playwright-core';

/** Debian's package (`.ci/run` installs it): this machine cannot download a browser build of its own. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Why no browser test can run here, or undefined when one can. On CI a missing browser is an error,
 * not a reason to skip: a green run must not hide that the UI went untested.
 */
export function browserUnavailable(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  const reason = `${CHROMIUM_PATH} is missing: apt-get install chromium (as .ci/run does)`;
  if (process.env.CI === 'true') throw new Error(reason);
  return reason;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox', // root in a container
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
