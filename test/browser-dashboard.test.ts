// The dashboard at /ui in a real headless Chromium (Debian's, through playwright-core): a broker
// holding timers in two queues, a dead letter, a schedule and a consumer group; the page signs in
// with a pasted token and every view shows the numbers the API answers (asked here through the
// SDK and compared); a timer cancelled from the queue view answers `cancelled`; the operator edits
// a plan; a wrong token and a 503 show words, not a blank page. Each view's screenshot lands in
// this run's temporary folder (its path is printed).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count } from '../dashboard/src/format.ts';
import { createClient, type Count, type QueenTimersClient } from '../sdk/src/index.ts';
import {
  BROWSER_TEST_TIMEOUT,
  BROWSER_WAIT,
  browserSuite,
  launchChromium,
  requireChromium,
  type BrowserSession,
} from './helpers/chromium.ts';
import { startTestBroker, type TestBroker } from './helpers/broker.ts';

const { skip, title } = browserSuite('the dashboard in a browser');
const TENANT = 'dash';

let tb: TestBroker;
let folder: string;
let browser: BrowserSession;
let page: Page;
let devToken: string;
let qt: QueenTimersClient;

/** How the page writes a count the API gave: exact "1,204", estimated "≈ 10.2 M", capped "≥ 100,000". */
const words = (c: Count) => count(c);

/** Reads until `done` holds of what `read` answers, or BROWSER_WAIT passes; answers the last read. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + BROWSER_WAIT;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await page.waitForTimeout(100);
    value = await read();
  }
  return value;
}

/** Waits until the element's text (trimmed) is `expected`, then answers it. */
async function textOf(locator: Locator, expected: string | RegExp): Promise<string> {
  await locator.first().waitFor();
  return until(
    async () => (await locator.first().innerText()).trim(),
    (text) => (typeof expected === 'string' ? text === expected || text.startsWith(expected) : expected.test(text)),
  );
}

/**
 * Waits until the timers table lists `expected` (its rows' keys, in order), then answers what it
 * lists: the table's caption says what was searched before the rows of the answer are in.
 */
function timerKeys(expected: string[]): Promise<(string | null)[]> {
  const rows = page.locator('table.timers tbody tr');
  return until(
    () => rows.evaluateAll((trs) => trs.map((r) => r.getAttribute('data-key'))),
    (keys) => JSON.stringify(keys) === JSON.stringify(expected),
  );
}

async function shot(name: string) {
  await page.screenshot({ path: join(folder, `${name}.png`), fullPage: true });
}

async function signIn(token: string) {
  await page.locator('#token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('[data-testid=whoami]').waitFor();
}

describe.skipIf(skip)(title, { timeout: BROWSER_TEST_TIMEOUT }, () => {
  beforeAll(async () => {
    requireChromium();
    // The cell's horizon reaches a year, so that a March occurrence can be scheduled whenever this runs.
    tb = await startTestBroker({ listen: true, sweeper: true, env: { QUEEN_DEFAULT_HORIZON_SECONDS: String(400 * 86_400) } });
    folder = mkdtempSync(join(tmpdir(), 'qt-dashboard-'));
    console.log(`dashboard screenshots: ${folder}`);
    devToken = await tb.token({ tenant: TENANT, sub: 'dev', grants: ['produce', 'consume', 'read'] });
    qt = createClient({ baseUrl: tb.url, token: devToken });

    // Timers in two queues (far enough ahead that none fires during the test).
    for (let i = 0; i < 6; i++)
      await qt.timers.schedule({ queue: 'reminders', timerKey: `user/${i}`, delayMs: (40 + i) * 60_000, payload: { remind: i } });
    await qt.timers.schedule({ queue: 'reminders', timerKey: 'cart/9', delayMs: 30 * 60_000, payload: 'plain words' });
    for (let i = 0; i < 3; i++)
      await qt.timers.schedule({ queue: 'billing', timerKey: `invoice-${i}`, delayMs: (2 + i) * 86_400_000, payload: { i } });
    // A schedule across a daylight-saving change: Sundays of March and April at 02:30 in Rome,
    // where 02:30 does not exist on the last Sunday of March.
    await qt.schedules.put({
      queue: 'reminders',
      scheduleKey: 'sunday-report',
      cron: '30 2 * 3,4 0',
      timezone: 'Europe/Rome',
      payload: { report: true },
    });
    // A consumer group with lag, and a dead letter it gave up on.
    await qt.log.pushMany([
      { queue: 'events', payload: { n: 1 } },
      { queue: 'events', payload: { n: 2 } },
      { queue: 'events', payload: { n: 3 } },
    ]);
    const [first] = await qt.log.pop('events', { consumerGroup: 'workers', batch: 1 });
    await qt.log.ack(first, 'dlq', { error: 'handler threw: bad input' });

    browser = await launchChromium({ viewport: { width: 1400, height: 900 } });
    page = browser.page;
  });

  afterAll(async () => {
    await browser?.close();
    await tb?.close();
  });

  it('a wrong token shows a sign-in message; the dev token signs in and the grants hide the operator view', async () => {
    await page.goto(`${tb.url}/ui`);
    await page.locator('#token').waitFor();
    await page.locator('#token').fill('not-a-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await textOf(page.getByRole('alert'), 'This token was refused')).toMatch(/This token was refused/);
    await signIn(devToken);
    expect(await page.locator('[data-testid=whoami]').innerText()).toContain(`tenant ${TENANT}`);
    const nav = await page.getByRole('navigation', { name: 'Views' }).innerText();
    expect(nav).toMatch(/Overview[\s\S]*Log[\s\S]*DLQ[\s\S]*Schedules/);
    expect(nav).not.toContain('Operator');
    // The token is in this tab's sessionStorage, never in the URL.
    expect(page.url()).not.toContain(devToken);
    expect(await page.evaluate(() => Object.values(sessionStorage))).toContain(devToken);
  });

  it('the overview shows the numbers the API gives, per queue', async () => {
    const overview = await qt.dashboard.overview();
    expect(overview.rows.map((r) => r.queue).sort()).toEqual(['billing', 'events', 'reminders']);
    for (const r of overview.rows) {
      const row = page.locator(`tr[data-queue="${r.queue}"]`);
      expect(await textOf(row.locator('[data-col=pending]'), words(r.pending))).toBe(words(r.pending));
      expect(await textOf(row.locator('[data-col=dueHour]'), words(r.due.nextHour))).toBe(words(r.due.nextHour));
      expect(await textOf(row.locator('[data-col=dueDay]'), words(r.due.nextDay))).toBe(words(r.due.nextDay));
      expect(await textOf(row.locator('[data-col=overdue]'), words(r.overdue))).toBe(words(r.overdue));
      expect(await textOf(row.locator('[data-col=dlq]'), words(r.deadLetters))).toBe(words(r.deadLetters));
      expect(await textOf(row.locator('[data-col=frames]'), words(r.log.frames))).toBe(words(r.log.frames));
    }
    const reminders = overview.rows.find((r) => r.queue === 'reminders')!;
    expect(reminders.pending.value).toBe(7);
    expect(reminders.due.nextHour.value).toBe(7);
    const events = overview.rows.find((r) => r.queue === 'events')!;
    expect(events.deadLetters.value).toBe(1);
    const lag = events.log.groups.find((g) => g.consumerGroup === 'workers')!;
    expect(
      await textOf(page.locator('tr[data-queue="events"] [data-group="workers"]'), `workers: ${words(lag.framesBehind)} behind`),
    ).toContain(`workers: ${words(lag.framesBehind)} behind`);
    await page.locator('.chart canvas').first().waitFor();
    await shot('overview');
  });

  it('the queue view lists, searches, forecasts and peeks as the API does, and cancels a timer: cancelled', async () => {
    await page.getByRole('link', { name: 'reminders' }).click();
    await page.waitForURL(`${tb.url}/ui/queues/reminders`);
    const byTime = await qt.timers.list('reminders', { order: 'deliverAt' });
    const keysByTime = byTime.rows.map((r) => r.timerKey);
    expect(await timerKeys(keysByTime)).toEqual(keysByTime);
    expect(byTime.rows[0].timerKey).toBe('cart/9');

    const forecast = await qt.dashboard.forecast('reminders');
    const total = forecast.byMinute.reduce((a, b) => a + b.count.value, 0);
    expect(total).toBe(7);
    expect(await textOf(page.locator('[data-testid=forecast-summary]'), `${total} timers fire in the next hour`)).toContain(
      `${total} timers fire`,
    );

    // The key-prefix search pages by key, as the API's prefix does.
    await page.getByLabel('Key prefix').fill('user/');
    await page.getByRole('button', { name: 'Search' }).click();
    const byPrefix = await qt.timers.list('reminders', { order: 'key', prefix: 'user/' });
    await textOf(page.locator('table.timers caption'), /starting with "user\/"/);
    const keysByPrefix = byPrefix.rows.map((r) => r.timerKey);
    expect(await timerKeys(keysByPrefix)).toEqual(keysByPrefix);
    expect(byPrefix.rows).toHaveLength(6);

    // Peek: a JSON payload is shown as JSON.
    await page.getByRole('button', { name: 'Open timer user/2' }).click();
    expect(await textOf(page.locator('pre.payload'), /"remind": 2/)).toMatch(/"remind": 2/);
    await shot('queue');

    // Cancel, confirmed in the dialog: the contract's word.
    await page.getByRole('button', { name: 'Cancel timer' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    expect(await textOf(page.locator('.panel .outcome'), 'cancelled')).toBe('cancelled');
    expect((await qt.timers.peek('reminders', 'user/2')).found).toBe(false);
  });

  it('reschedules a timer by a new delay', async () => {
    await page.getByRole('button', { name: 'Open timer user/3' }).click();
    await textOf(page.locator('pre.payload'), /"remind": 3/);
    await page.getByLabel('New delay (seconds)').fill('7200');
    expect(await page.getByLabel('New delay (seconds)').inputValue()).toBe('7200');
    await page.getByRole('button', { name: 'Reschedule' }).click();
    expect(await textOf(page.locator('.panel .outcome'), /^rescheduled/)).toMatch(
      /^rescheduled: fires in 1 h 59 min|^rescheduled: fires in 2 h/,
    );
    const peek = await qt.timers.peek('reminders', 'user/3');
    expect(peek.found && Date.parse(peek.deliverAt) - Date.now()).toBeGreaterThan(7_000_000);
  });

  it('the log view shows partitions, the consumer group lag and frames as the API does', async () => {
    await page.goto(`${tb.url}/ui/log/events`);
    const groups = await qt.dashboard.groups('events');
    const workers = groups.rows.find((g) => g.consumerGroup === 'workers')!;
    expect(workers.framesBehind.value).toBe(2);
    expect(await textOf(page.locator('tr[data-group="workers"] [data-col=behind]'), words(workers.framesBehind))).toBe(
      words(workers.framesBehind),
    );
    const partitions = await qt.dashboard.partitions('events');
    const p = partitions.rows[0];
    expect(await textOf(page.locator(`tr[data-partition="${p.partition}"] [data-col=frames]`), words(p.frames))).toBe(words(p.frames));
    const frames = await qt.dashboard.frames('events', { partition: p.partition });
    await page.locator('table.frames tbody tr').first().waitFor();
    expect(await page.locator('table.frames tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-seq')))).toEqual(
      frames.rows.map((f) => String(f.seq)),
    );
    await shot('log');
  });

  it('the DLQ view shows the dead letter with its error and replays it after confirmation', async () => {
    await page.getByRole('link', { name: 'DLQ' }).click();
    const dlq = await qt.deadLetters.list();
    expect(dlq.total).toBe(1);
    const [row] = dlq.messages;
    expect(await textOf(page.locator('[data-testid=dlq-total]'), `${dlq.total} dead letter`)).toContain('1 dead letter');
    expect(await page.locator(`tr[data-id="${row.id}"] .error-text`).innerText()).toContain('handler threw: bad input');
    await shot('dlq');
    await page.getByRole('button', { name: `Replay dead letter ${row.id}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    expect(await textOf(page.locator('.outcome'), /replayed/)).toContain('replayed');
  });

  it('the schedules view shows the cron, zone and next occurrences the API gives', async () => {
    await page.goto(`${tb.url}/ui/schedules/reminders`);
    await page.getByRole('button', { name: 'Open schedule sunday-report' }).click();
    const s = await qt.schedules.get('reminders', 'sunday-report', { occurrences: 10 });
    if (!s.found) throw new Error('the schedule is missing');
    await page.locator('table.occurrences tbody tr').first().waitFor();
    const locals = await page.locator('table.occurrences tbody tr td:first-child').allInnerTexts();
    expect(locals).toEqual(s.nextOccurrences.map((o) => o.local));
    // A row is flagged exactly when the API says daylight saving time touches it.
    const flagged = await page.locator('table.occurrences tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-dst')));
    expect(flagged).toEqual(s.nextOccurrences.map((o) => (o.dstShift || o.offsetChanged ? 'yes' : 'no')));
    expect(s.nextOccurrences.some((o) => o.dstShift === 'skipped')).toBe(true);
    expect(await page.locator('table.occurrences').innerText()).toContain('does not exist that day');
    expect(await page.locator('.panel .facts').innerText()).toContain('Europe/Rome');
    await shot('schedules');
  });

  it('a 503 shows "database unavailable, retrying" and the page recovers', async () => {
    await page.goto(`${tb.url}/ui`);
    await page.locator('tr[data-queue="reminders"]').waitFor();
    tb.broker.state.ready = false; // the broker answers 503 as while it drains
    try {
      await page.getByText('Database unavailable, retrying').waitFor({ timeout: BROWSER_WAIT * 2 });
    } finally {
      tb.broker.state.ready = true;
    }
    await page.getByText('Database unavailable, retrying').waitFor({ state: 'detached', timeout: BROWSER_WAIT * 2 });
  });

  it('an expired token shows the sign-in message, not a blank page', async () => {
    const expired = await tb.token({ tenant: TENANT, sub: 'dev', grants: ['read'], expiresIn: '1s' });
    // Stored from a page of the broker's origin that runs no script: a poll of the dashboard left
    // open would spend the expired token (its 401 clears it) before the page under test reads it.
    await page.goto(`${tb.url}/ui/assets/style.css`);
    await page.evaluate((t) => sessionStorage.setItem('queen-timers.dashboard.token', t), expired);
    await page.waitForTimeout(2_100); // past the token's expiry (a wait for a fact, not a speed bound)
    await page.goto(`${tb.url}/ui/dlq`);
    expect(await textOf(page.getByRole('alert'), /refused this token/)).toMatch(/refused this token/);
    await page.locator('#token').waitFor();
  });

  it('the operator token sees the operator view and edits a plan', async () => {
    await signIn(await tb.operatorToken());
    await page.goto(`${tb.url}/ui/operator`);
    expect(await page.getByRole('navigation', { name: 'Views' }).innerText()).toContain('Operator');
    const admin = createClient({ baseUrl: tb.url, token: await tb.operatorToken() });
    const before = await admin.admin.plan(TENANT);
    const row = page.locator(`tr[data-tenant="${TENANT}"]`);
    expect(await textOf(row.locator('[data-col=maxPendingTimers]'), before.maxPendingTimers.toLocaleString('en-US'))).toBe(
      before.maxPendingTimers.toLocaleString('en-US'),
    );
    const cluster = await admin.admin.cluster();
    expect(await textOf(page.locator('[data-testid=cluster]'), /Producing/)).toContain(cluster.produceBlocked ? 'BLOCKED' : 'allowed');
    await shot('operator');
    await page.getByRole('button', { name: `Edit the plan of ${TENANT}` }).click();
    await page.getByLabel('Max pending timers').fill('12345');
    await page.getByRole('button', { name: 'Save plan' }).click();
    expect(await textOf(page.locator('.editor .outcome'), `saved the plan of ${TENANT}`)).toBe(`saved the plan of ${TENANT}`);
    expect((await admin.admin.plan(TENANT)).maxPendingTimers).toBe(12345);
    expect(await textOf(row.locator('[data-col=maxPendingTimers]'), '12,345')).toBe('12,345');
  });

  it('every view is reachable by its own URL and the broker falls back to the page for views, not for assets', async () => {
    for (const path of ['/ui', '/ui/queues/reminders', '/ui/log/events', '/ui/dlq', '/ui/schedules/reminders', '/ui/operator']) {
      const res = await fetch(`${tb.url}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    }
    expect((await fetch(`${tb.url}/ui/assets/missing.js`)).status).toBe(404);
    expect((await fetch(`${tb.url}/ui/..%2f..%2fpackage.json`)).status).toBe(404);
    // A view named with a '%' (a queue called "100%") is a view, not a 500 from decoding it twice.
    expect((await fetch(`${tb.url}/ui/queues/100%25`)).status).toBe(200);
  });
});
