// Queue: one queue's numbers, the forecast of what fires when, its pending timers (by deliverAt or
// by key, keyset pages, a key-prefix search), and per timer: peek, cancel, reschedule.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { decodePayload, type PeekResult, type TimerRow } from '../../../sdk/src/index.ts';
import { api, errorText, invalidate, useQuery } from '../api.ts';
import { Chart } from '../chart.ts';
import { count, instant, num, relative } from '../format.ts';
import { can, confirmAction, CountCell, Failure, Loading, Outcome, useMe, usePager } from '../ui.ts';
import { FireLagChart } from './overview.ts';

function Forecast({ queue }: { queue: string }) {
  const [range, setRange] = useState<'hour' | 'days'>('hour');
  const f = useQuery(['forecast', queue], () => api().dashboard.forecast(queue), 30_000);
  if (f.error) return html`<${Failure} error=${f.error} />`;
  if (!f.data) return html`<${Loading} what="the forecast" />`;
  const buckets = range === 'hour' ? f.data.byMinute : f.data.byDay;
  const estimated = buckets.some((b) => b.count.basis !== 'exact');
  const total = buckets.reduce((a, b) => a + b.count.value, 0);
  const summary = `${num(total)}${estimated ? ' (some estimated)' : ''} timers fire in the next ${range === 'hour' ? 'hour, by minute' : '90 days, by day'}.`;
  return html`<div>
    <div class="row" role="group" aria-label="Forecast range">
      <button type="button" aria-pressed=${range === 'hour'} onClick=${() => setRange('hour')}>Next hour by minute</button>
      <button type="button" aria-pressed=${range === 'days'} onClick=${() => setRange('days')}>Next 90 days by day</button>
    </div>
    <${Chart}
      bars
      x=${buckets.map((b) => Date.parse(b.start) / 1000)}
      yLabel="timers"
      summary=${summary}
      series=${[{ label: 'timers', values: buckets.map((b) => b.count.value), color: '#1f6f8b' }]}
    />
    <p class="muted" data-testid="forecast-summary">${summary}${estimated ? ' Later buckets are estimates (≈).' : ''}</p>
  </div>`;
}

/** The payload in words: text or JSON when it is stored plainly; otherwise what it is. */
function PayloadView({ peek }: { peek: PeekResult & { found: true } }) {
  if (peek.encrypted)
    return html`<p>Payload: encrypted at rest (${peek.payloadZstd ? 'and compressed; ' : ''}the dashboard does not decrypt).</p>`;
  if (peek.payloadZstd) return html`<p>Payload: compressed (zstd); not shown.</p>`;
  const decoded = decodePayload(peek.payload);
  let text: string;
  let kind = 'text';
  try {
    text = JSON.stringify(decoded.json(), null, 2);
    kind = 'JSON';
  } catch {
    text = decoded.text();
    if (text.includes('\uFFFD')) return html`<p>Payload: ${num(decoded.bytes.length)} bytes of binary data.</p>`;
  }
  return html`<div>
    <p>Payload (${kind}, ${num(decoded.bytes.length)} bytes):</p>
    <pre class="payload" tabindex="0" aria-label="payload">${text}</pre>
  </div>`;
}

function TimerPanel({ queue, timerKey, onClose }: { queue: string; timerKey: string; onClose: () => void }) {
  const me = useMe();
  const p = useQuery(['peek', queue, timerKey], () => api().timers.peek(queue, timerKey));
  const [outcome, setOutcome] = useState<{ text: string; kind: 'ok' | 'error' } | null>(null);
  const [delay, setDelay] = useState('60');
  const peek = p.data;

  const cancel = async () => {
    if (!(await confirmAction(`Cancel timer "${timerKey}" in queue ${queue}? It will not fire.`))) return;
    try {
      const r = await api().timers.cancel(queue, timerKey);
      setOutcome({ text: r.status, kind: r.status === 'cancelled' ? 'ok' : 'error' });
      void invalidate('timers', queue);
      void invalidate('overview');
    } catch (e) {
      setOutcome({ text: errorText(e), kind: 'error' });
    }
  };
  const reschedule = async (e: Event) => {
    e.preventDefault();
    if (!peek || !peek.found) return;
    const seconds = Number(delay);
    if (!Number.isFinite(seconds) || seconds < 0) return setOutcome({ text: 'the delay must be a number of seconds ≥ 0', kind: 'error' });
    try {
      const r = await api().timers.reschedule({
        queue,
        timerKey,
        delayMs: Math.round(seconds * 1000),
        payload: decodePayload(peek.payload).bytes,
        partition: peek.partition,
      });
      setOutcome({ text: r.ok ? `${r.status}: fires ${relative(r.deliverAt)}` : r.status, kind: r.ok ? 'ok' : 'error' });
      void invalidate('timers', queue);
      void invalidate('peek', queue, timerKey);
    } catch (err) {
      setOutcome({ text: errorText(err), kind: 'error' });
    }
  };

  return html`<section class="panel" aria-labelledby="h-timer">
    <h2 id="h-timer">Timer <code>${timerKey}</code></h2>
    <button type="button" class="close" onClick=${onClose} aria-label="Close the timer panel">×</button>
    <${Failure} error=${p.error} />
    ${peek && !peek.found ? html`<p>Not pending: it fired, was cancelled, or never existed.</p>` : null}
    ${
      peek?.found &&
      html`<dl class="facts">
          <dt>Fires</dt>
          <dd>${instant(peek.deliverAt)} (${relative(peek.deliverAt)})</dd>
          <dt>Partition</dt>
          <dd>${peek.partition}</dd>
          <dt>State</dt>
          <dd>
            ${peek.claimed ? 'claimed by a sweeper' : 'pending'}; ${peek.attempts}
            attempt(s)${peek.lastError ? `; last error: ${peek.lastError}` : ''}
          </dd>
          <dt>Producer</dt>
          <dd>${peek.producerSub}</dd>
          <dt>txn</dt>
          <dd><code>${peek.txn}</code></dd>
        </dl>
        <${PayloadView} peek=${peek} />`
    }
    ${
      can(me, 'produce')
        ? html`<div class="actions">
            <button type="button" class="danger" onClick=${cancel}>Cancel timer</button>
            ${
              peek?.found && !peek.encrypted && !peek.payloadZstd
                ? html`<form class="row" onSubmit=${reschedule}>
                    <label
                      >New delay (seconds)
                      <input
                        type="number"
                        min="0"
                        step="any"
                        value=${delay}
                        onInput=${(e: Event) => setDelay((e.target as HTMLInputElement).value)}
                    /></label>
                    <button type="submit">Reschedule</button>
                  </form>`
                : peek?.found
                  ? html`<p class="muted">
                      Reschedule resends the payload; this one is stored ${peek.encrypted ? 'encrypted' : 'compressed'}, so reschedule it
                      from its producer.
                    </p>`
                  : null
            }
          </div>`
        : html`<p class="muted">This token has no produce grant: cancel and reschedule are hidden.</p>`
    }
    <${Outcome} text=${outcome?.text ?? null} kind=${outcome?.kind} />
  </section>`;
}

function TimerList({ queue, onOpen }: { queue: string; onOpen: (key: string) => void }) {
  const [order, setOrder] = useState<'deliverAt' | 'key'>('deliverAt');
  const [prefix, setPrefix] = useState('');
  const [typed, setTyped] = useState('');
  const { after, Pager } = usePager(`${queue}|${order}|${prefix}`);
  const list = useQuery(
    ['timers', queue, order, prefix, after ?? null],
    () => api().timers.list(queue, { order, prefix: order === 'key' && prefix ? prefix : undefined, after, limit: 50 }),
    10_000,
  );
  const search = (e: Event) => {
    e.preventDefault();
    setOrder('key');
    setPrefix(typed);
  };
  return html`<section aria-labelledby="h-pending">
    <h2 id="h-pending">Pending timers</h2>
    <div class="row">
      <div role="group" aria-label="Order">
        <button type="button" aria-pressed=${order === 'deliverAt'} onClick=${() => (setOrder('deliverAt'), setPrefix(''))}>
          By fire time
        </button>
        <button type="button" aria-pressed=${order === 'key'} onClick=${() => setOrder('key')}>By key</button>
      </div>
      <form role="search" class="row" onSubmit=${search}>
        <label
          >Key prefix <input type="search" value=${typed} onInput=${(e: Event) => setTyped((e.target as HTMLInputElement).value)}
        /></label>
        <button type="submit">Search</button>
      </form>
    </div>
    <${Failure} error=${list.error} />
    ${
      list.data &&
      html`<table class="timers">
          <caption>
            ${order === 'deliverAt' ? 'By fire time' : `By key${prefix ? `, starting with "${prefix}"` : ''}`}
          </caption>
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Fires</th>
              <th scope="col">State</th>
              <th scope="col">Attempts</th>
              <th scope="col">Payload</th>
            </tr>
          </thead>
          <tbody>
            ${list.data.rows.map(
              (t: TimerRow) =>
                html`<tr data-key=${t.timerKey}>
                  <th scope="row">
                    <button type="button" class="linkish" onClick=${() => onOpen(t.timerKey)} aria-label=${`Open timer ${t.timerKey}`}>
                      ${t.timerKey}
                    </button>
                  </th>
                  <td>${instant(t.deliverAt)} <span class="muted">(${relative(t.deliverAt)})</span></td>
                  <td>${t.claimed ? 'claimed' : 'pending'}</td>
                  <td class="num">${t.attempts}</td>
                  <td>${t.encrypted ? 'encrypted' : t.payloadZstd ? 'compressed' : 'plain'}</td>
                </tr>`,
            )}
          </tbody>
        </table>
        ${list.data.rows.length === 0 ? html`<p>No pending timer${prefix ? ` whose key starts with "${prefix}"` : ''}.</p>` : null}
        <${Pager} nextAfter=${list.data.nextAfter} truncated=${list.data.truncated} label="Timers" />`
    }
    ${!list.data && !list.error ? html`<${Loading} what="timers" />` : null}
  </section>`;
}

export function Queue({ queue }: { queue: string }) {
  const [open, setOpen] = useState<string | null>(null);
  const o = useQuery(['overview', 'queue', queue], () => api().dashboard.overview({ queue }), 5_000);
  const row = o.data?.rows.find((r) => r.queue === queue);
  return html`<section aria-labelledby="h-queue">
    <h1 id="h-queue">Queue <code>${queue}</code></h1>
    <${Failure} error=${o.error} />
    ${
      row &&
      html`<table class="facts-table" data-queue=${queue}>
        <caption>
          Now
        </caption>
        <tbody>
          <tr>
            <th scope="row">Pending</th>
            <${CountCell} c=${row.pending} col="pending" />
          </tr>
          <tr>
            <th scope="row">Due in the next minute / hour / day</th>
            <td class="num" data-col="due">${count(row.due.nextMinute)} / ${count(row.due.nextHour)} / ${count(row.due.nextDay)}</td>
          </tr>
          <tr>
            <th scope="row">Overdue (over 5 s)</th>
            <td class="num" data-col="overdue">${count(row.overdue)} (${count(row.overdueOver5s)})</td>
          </tr>
          <tr>
            <th scope="row">Claimed</th>
            <${CountCell} c=${row.claimed} col="claimed" />
          </tr>
          <tr>
            <th scope="row">DLQ</th>
            <${CountCell} c=${row.deadLetters} col="dlq" />
          </tr>
        </tbody>
      </table>`
    }
    ${o.data && !row ? html`<p>No queue named ${queue} in this tenant (yet).</p>` : null}
    ${open ? html`<${TimerPanel} key=${open} queue=${queue} timerKey=${open} onClose=${() => setOpen(null)} />` : null}
    <section aria-labelledby="h-forecast">
      <h2 id="h-forecast">Forecast</h2>
      <${Forecast} queue=${queue} />
    </section>
    <${TimerList} queue=${queue} onOpen=${setOpen} />
    <section aria-labelledby="h-qlag">
      <h2 id="h-qlag">Fire lag, last hour</h2>
      <${FireLagChart} queue=${queue} />
    </section>
  </section>`;
}
