// Real Chromium for browser tests (Debian's /usr/bin/chromium driven by playwright-core; no
// browser is downloaded). Without it a test skips, saying how to get it, except under
// CI=true, where it fails (.ci/run installs it).
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';

export const CHROMIUM = process.env.SVC_CHROMIUM ?? '/usr/bin/chromium';
export const NO_CHROMIUM = `Chromium is not installed at ${CHROMIUM}: apt-get install chromium (or set SVC_CHROMIUM)`;

/** For describe.skipIf: why Chromium tests cannot run here; under CI=true it throws instead. */
export function chromiumSkipReason(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  if (process.env.CI === 'true') throw new Error(NO_CHROMIUM);
  return NO_CHROMIUM;
}

/**
 * Headless Chromium with a fresh profile (playwright makes a new one per launch). `hostRules` maps names to addresses the way DNS
 * would (Chromium's --host-resolver-rules), e.g. "MAP rebind.test 127.0.0.2".
 */
export async function launchChromium(hostRules: string[] = []): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync',
      ...(hostRules.length > 0 ? [`--host-resolver-rules=${hostRules.join(', ')}`] : []),
    ],
  });
}
