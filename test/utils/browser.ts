/// <reference lib="dom" />
// axeViolations' callback runs in the browser.
import { existsSync, readFileSync } from 'node:fs';
import { Browser, chromium, Page } from 'playwright-core';

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

let axeSource: string | undefined;

/**
 * axe-core's serious and critical violations on the page as it is now (WCAG 2.x A/AA rules and best
 * practices). Injected through the DevTools protocol, so the page's CSP stays as served.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(): Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }> };
      }
    ).axe;
    const result = await axe.run();
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
  });
  return violations;
}

/**
 * The CSP docs/PROTECT-A-FORM.md gives customers for the widget (script-src and connect-src name
 * Gatehouse, worker-src blob:, nothing for styles), plus 'self' for the pages' own files and fetches:
 * every page below is served with it, so the widget is proven to work under it.
 */
export const customerCsp = (api: string) =>
  [
    "default-src 'none'",
    `script-src 'self' ${api}`,
    `connect-src 'self' ${api}`,
    'worker-src blob:',
    "style-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
  ].join('; ');
