// Debian's headless Chromium for the browser tests (never a tool's own browser download).
// Locally a missing browser skips the suite (with the reason in its name); in CI it must run, and
// .ci/setup-extra installs it — so there a missing binary fails loudly in the suite's beforeAll
// (`requireChromium`).
import { existsSync } from 'node:fs';

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

/** In a suite's beforeAll: CI must have the browser. */
export function requireChromium(): void {
  if (!haveChromium) throw new Error(`${CHROMIUM} is missing in CI: .ci/setup-extra should have installed it`);
}
