// Debian's headless Chromium for the browser tests (never a tool's own browser download).
// Locally a missing browser skips the suite (with the reason in its name); in CI it must run, and
// .ci/setup-extra installs it — so there a missing binary fails loudly in the suite's beforeAll
// (`requireChromium`).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** CHROMIUM_PATH points elsewhere for a machine whose browser is not Debian's. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

/** Whether a suite named `name` skips here, and its title (which says why when it does). */
export function browserSuite(name: string): { skip: boolean; title: string } {
  const skip = !haveChromium && !process.env.CI;
  const title = skip ? `${name} — SKIPPED: ${CHROMIUM} is missing (apt-get install chromium, or run .ci/setup-extra)` : name;
  if (skip) console.warn(title);
  return { skip, title };
}

/**
 * Ceilings inside a browser test: for a selector or an action (the context's default), and for a
 * whole test. Beside the Citus suites a first page load was seen to take 23 s.
 */
export const BROWSER_WAIT = 45_000;
export const BROWSER_TEST_TIMEOUT = 150_000;
/** A launch that stalls fails on its own, with the browser's log, before the hook's ceiling. */
const BROWSER_LAUNCH_TIMEOUT = 120_000;

export interface BrowserSession {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/**
 * Debian's Chromium with a fresh profile of its own (launchPersistentContext is how playwright
 * takes a --user-data-dir), so that nothing a page persisted in another run — Swagger UI's
 * authorization, the dashboard's token — can make a test pass.
 */
export async function launchChromium(o: { viewport?: { width: number; height: number } } = {}): Promise<BrowserSession> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'qt-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_FLAGS,
      timeout: BROWSER_LAUNCH_TIMEOUT,
      ...o,
    });
  } catch (err) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw err;
  }
  context.setDefaultTimeout(BROWSER_WAIT);
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** In a suite's beforeAll: CI must have the browser. */
export function requireChromium(): void {
  if (!haveChromium) throw new Error(`${CHROMIUM} is missing in CI: .ci/setup-extra should have installed it`);
}
