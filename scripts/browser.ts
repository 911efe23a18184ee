// Headless Chromium for the end-to-end tests and the screenshot script: Debian's `chromium`
// package (scripts/test.sh installs it when missing) driven by playwright-core. Without the
// networking flags, Chromium's background connections are refused on these machines.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Chromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A fresh Chromium profile (its own user-data dir) with a 1366×768 window, a laptop screen. */
export async function launchChromium(opts: { downloads?: boolean } = {}): Promise<Chromium> {
  const profile = await mkdtemp(join(tmpdir(), 'chromium-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: FLAGS,
    viewport: { width: 1366, height: 768 },
    acceptDownloads: opts.downloads ?? true,
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

export type { Browser };
