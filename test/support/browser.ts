import * as http from 'node:http';
import { Browser, Page, chromium } from 'playwright-core';

/** Debian's Chromium (installed by .ci/run), headless, with the flags this closed network needs. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * A free TCP port of this machine, below the range the kernel hands out for outgoing connections
 * and `listen(0)` (32768 and up): between this check and the app's listen, which starts a whole
 * application, no connection of another test can take it.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = http.createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * The page's serious and critical axe-core violations, each as `id (impact): help at targets`.
 * The page's context needs `bypassCSP` (axe-core is injected as an inline script).
 */
export async function seriousAxeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
  const violations = await page.evaluate<AxeViolation[]>(
    'axe.run(document).then((result) => result.violations)',
  );
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    );
}
