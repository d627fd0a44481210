// The first contact: Swagger UI at /docs in a real headless Chromium. The page is this product's
// (its title, no Fastify logo or top bar); with a bearer token authorized, "Try it out" →
// "Execute" on the schedule route's example exactly as shipped schedules the tour's timer (200)
// and the cancel route's pre-filled example cancels it; a key with a slash, typed in, schedules and
// cancels too. Each 200 is checked in the page and in the database.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchInputExample, cancelOutputExample } from '../src/contract/examples.ts';
import { BROWSER_TEST_TIMEOUT, browserSuite, launchChromium, requireChromium, type BrowserSession } from './helpers/chromium.ts';
import { startTestBroker, type TestBroker } from './helpers/broker.ts';

const { skip, title } = browserSuite('Swagger UI in a browser');

let tb: TestBroker;
let browser: BrowserSession;
let page: Page;

/** Expands one operation in Swagger UI (unless it is open already) and switches it to "Try it out". */
async function openOperation(operationId: string) {
  const block = page.locator(`#operations-timers-${operationId}`);
  if (!(await block.getAttribute('class'))?.includes('is-open')) await block.locator('.opblock-summary').first().click();
  // The broker configures Swagger UI with tryItOutEnabled, so the editors are usually open already.
  const tryOut = block.getByRole('button', { name: 'Try it out' });
  if (await tryOut.count()) await tryOut.click();
  return block;
}

/** Executes an open operation and answers the live response's status and parsed body. */
async function execute(block: ReturnType<Page['locator']>) {
  const status = block.locator('.live-responses-table .response .response-col_status').first();
  // A response from an earlier execution is cleared first, so the one read below is this one's.
  const clear = block.locator('button.btn-clear');
  if (await clear.count()) {
    await clear.click();
    await status.waitFor({ state: 'detached' });
  }
  await block.locator('button.execute').click();
  await status.waitFor();
  const body = await block
    .locator('.live-responses-table .response-col_description .microlight, .live-responses-table .response-col_description pre')
    .first()
    .innerText();
  return { status: Number((await status.innerText()).trim()), body: JSON.parse(body) };
}

describe.skipIf(skip)(title, { timeout: BROWSER_TEST_TIMEOUT }, () => {
  beforeAll(async () => {
    requireChromium();
    tb = await startTestBroker({ listen: true });
    // A fresh profile: Swagger UI's persisted authorization from another run cannot make this pass.
    browser = await launchChromium();
    page = browser.page;
  });

  afterAll(async () => {
    await browser?.close();
    await tb?.close();
  });

  it('serves Swagger UI at /docs titled "queen-timers API", with the timer routes and without the top bar', async () => {
    const res = await page.goto(`${tb.url}/docs`);
    expect(res?.status()).toBe(200);
    await page.locator('#operations-timers-timers-batch').waitFor();
    await expect(page.locator('#operations-timers-timers-cancel').count()).resolves.toBe(1);
    await expect(page.title()).resolves.toBe('queen-timers API');
    // The top bar holds the plugin's Fastify logo and the "Explore" box; neither is rendered.
    await expect(page.locator('.topbar').count()).resolves.toBe(0);
    await expect(page.locator('img[src^="data:image/svg+xml"]').count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Explore' }).count()).resolves.toBe(0);
    await expect(page.locator('.info .title').first().innerText()).resolves.toContain('queen-timers');
  });

  it("authorizes, then schedules with the schedule example exactly as shipped and cancels with the cancel route's example", async () => {
    const token = await tb.token({ tenant: 'browser', sub: 'swagger' });
    await page.locator('button.authorize').first().click();
    const modal = page.locator('.modal-ux');
    await modal.locator('input').first().fill(token);
    await modal.locator('button.modal-btn.auth.authorize').click();
    await modal.locator('button.btn-done').click();

    const batch = await openOperation('timers-batch');
    // Untouched: the editor holds the example the document ships.
    expect(JSON.parse(await batch.locator('textarea.body-param__text').inputValue())).toEqual(batchInputExample);
    const scheduled = await execute(batch);
    expect(scheduled.status).toBe(200);
    const [op] = batchInputExample.operations;
    expect(scheduled.body.results).toEqual([
      {
        ok: true,
        status: 'scheduled',
        queue: op.queue,
        timerKey: op.timerKey,
        txn: op.txn,
        messageId: expect.any(String),
        deliverAt: expect.any(String),
      },
    ]);
    const pending = await tb.sql.query(`SELECT queue, timer_key FROM timers`);
    expect(pending.rows).toEqual([{ queue: op.queue, timer_key: op.timerKey }]);

    const cancel = await openOperation('timers-cancel');
    const cancelled = await execute(cancel);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toEqual(cancelOutputExample);
    const rows = await tb.sql.query(`SELECT count(*)::int AS n FROM timers`);
    expect(rows.rows[0].n).toBe(0);
  });

  it('schedules under tenant/42, typed into the editor, and cancels it with DELETE', async () => {
    const batch = await openOperation('timers-batch');
    const operations = [
      {
        op: 'schedule',
        queue: 'reminders',
        timerKey: 'tenant/42',
        delayMs: 3_600_000,
        txn: 'browser-txn-1',
        payload: 'eyJraW5kIjoiZGF5NyJ9',
      },
    ];
    await batch.locator('textarea.body-param__text').fill(JSON.stringify({ operations }, null, 2));
    const scheduled = await execute(batch);
    expect(scheduled.status).toBe(200);
    expect(scheduled.body.results).toEqual([
      {
        ok: true,
        status: 'scheduled',
        queue: 'reminders',
        timerKey: 'tenant/42',
        txn: 'browser-txn-1',
        messageId: expect.any(String),
        deliverAt: expect.any(String),
      },
    ]);

    const cancel = await openOperation('timers-cancel');
    await cancel.locator('tr[data-param-name="queue"] input').fill('reminders');
    await cancel.locator('tr[data-param-name="timerKey"] input').fill('tenant/42');
    await cancel.locator('tr[data-param-name="txn"] input').fill(''); // the example's txn is another timer's
    const cancelled = await execute(cancel);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toEqual({ ok: true, status: 'cancelled', queue: 'reminders', timerKey: 'tenant/42', txn: 'browser-txn-1' });

    const rows = await tb.sql.query(`SELECT count(*)::int AS n FROM timers`);
    expect(rows.rows[0].n).toBe(0);
  });
});
