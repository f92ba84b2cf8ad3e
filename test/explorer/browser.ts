import { execFileSync } from 'node:child_process';
import { type Browser, chromium } from 'playwright-core';

/**
 * Debian's Chromium, found as `command -v chromium` finds it (or CHROMIUM_PATH). Playwright's
 * own browser download cannot work on these machines; `.ci/run` installs the package.
 */
export function findChromium(): string | undefined {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) return configured;
  try {
    const found = execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
    return found === '' ? undefined : found;
  } catch {
    return undefined;
  }
}

/** Headless Chromium that reaches for nothing on the network by itself. */
export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
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
