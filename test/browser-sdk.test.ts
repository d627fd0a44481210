// The SDK in a real browser: sdk/src, transpiled file by file with TypeScript (no bundler, no
// build), served from the broker's own origin and imported as native ES modules by headless
// Chromium — which proves the SDK needs nothing from Node (fetch, btoa, TextEncoder, crypto).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT, browserSuite, launchChromium, requireChromium, type BrowserSession } from './helpers/chromium.ts';
import { startTestBroker, type TestBroker } from './helpers/broker.ts';

const { skip, title } = browserSuite('the SDK in a browser');
const SDK_SRC = fileURLToPath(new URL('../sdk/src/', import.meta.url));

let tb: TestBroker;
let browser: BrowserSession;
let page: Page;

describe.skipIf(skip)(title, { timeout: BROWSER_TEST_TIMEOUT }, () => {
  beforeAll(async () => {
    requireChromium();
    tb = await startTestBroker({ listen: true, sweeper: true });
    browser = await launchChromium();
    const { context } = browser;
    page = browser.page;
    // /__sdk/<file>.ts → that SDK source as JavaScript (type-only imports erased).
    await context.route(`${tb.url}/__sdk/**`, async (route) => {
      const file = new URL(route.request().url()).pathname.slice('/__sdk/'.length);
      const source = readFileSync(join(SDK_SRC, file), 'utf8');
      const js = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      }).outputText;
      await route.fulfill({ status: 200, contentType: 'text/javascript', body: js });
    });
    // A page that imports the SDK as a native module and exposes it as window.sdk (imports are
    // written here, in the page, because vitest rewrites import() inside evaluate callbacks).
    const html = `<!doctype html><title>sdk</title><script type="module">import * as sdk from '/__sdk/index.ts'; window.sdk = sdk;</script>`;
    await context.route(`${tb.url}/__page`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: html }));
    await page.goto(`${tb.url}/__page`);
    await page.waitForFunction(() => 'sdk' in window);
  });

  afterAll(async () => {
    await browser?.close();
    await tb?.close();
  });

  it('schedules, peeks, cancels under a slashed key, fires and pops from a page', async () => {
    const token = await tb.token({ tenant: 'browser-sdk', sub: 'page' });
    const result = await page.evaluate(async (token) => {
      const { createClient } = (window as any).sdk;
      const qt = createClient({ baseUrl: location.origin, token });
      const kept = await qt.timers.schedule({
        queue: 'web',
        timerKey: 'cart/7 items?',
        delayMs: 3_600_000,
        payload: new Uint8Array([1, 2, 3]),
      });
      const peek = await qt.timers.peek('web', 'cart/7 items?');
      const cancel = await qt.timers.cancel('web', 'cart/7 items?', { txn: kept.txn });
      const fired = await qt.timers.schedule({ queue: 'web', timerKey: 'soon/1', delayMs: 0, payload: { from: 'browser' } });
      let frames: any[] = [];
      for (let i = 0; i < 20 && frames.length === 0; i++) frames = await qt.log.pop('web', { wait: true, timeoutMs: 1_000 });
      await qt.log.ack(frames[0]);
      return {
        kept: kept.status,
        peek: { found: peek.found, payload: peek.payload },
        cancel,
        match: frames[0].id === fired.messageId && frames[0].transactionId === fired.txn,
        json: frames[0].json(),
      };
    }, token);
    expect(result).toEqual({
      kept: 'scheduled',
      peek: { found: true, payload: 'AQID' },
      cancel: { ok: true, status: 'cancelled', queue: 'web', timerKey: 'cart/7 items?', txn: expect.any(String) },
      match: true,
      json: { from: 'browser' },
    });
  });

  it('surfaces a refusal as QueenTimersError with status and code', async () => {
    const token = await tb.token({ tenant: 'browser-sdk', sub: 'page', grants: ['produce'] });
    const err = await page.evaluate(async (token) => {
      const { createClient, QueenTimersError } = (window as any).sdk;
      try {
        await createClient({ baseUrl: location.origin, token }).timers.peek('web', 'x');
        return null;
      } catch (e: any) {
        return { isClass: e instanceof QueenTimersError, status: e.status, code: e.code };
      }
    }, token);
    expect(err).toEqual({ isClass: true, status: 403, code: 'grant_missing' });
  });
});
