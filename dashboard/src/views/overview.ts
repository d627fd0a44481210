// Overview: per queue of the caller's tenant, what is pending, due soon, overdue, claimed, fired,
// dead-lettered and waiting in the log; fire lag p50/p99 over the last hour; warnings in words.
import { html } from 'htm/preact';
import type { GroupLag } from '../../../sdk/src/index.ts';
import { api, useQuery } from '../api.ts';
import { Chart } from '../chart.ts';
import { count, num } from '../format.ts';
import { BASE, CountCell, Failure, Link, Loading, seg, usePager } from '../ui.ts';

/** "workers: 2 behind, oldest 23 s" */
const lagWords = (g: GroupLag) =>
  `${g.consumerGroup}: ${count(g.framesBehind)} behind${g.oldestUnconsumedAgeSeconds !== null ? `, oldest ${Math.round(g.oldestUnconsumedAgeSeconds)} s` : ''}`;

export function FireLagChart({ queue }: { queue?: string }) {
  const lag = useQuery(['fire-lag', queue ?? null], () => api().dashboard.fireLag({ queue, minutes: 60 }), 10_000);
  if (lag.error) return html`<${Failure} error=${lag.error} />`;
  if (!lag.data) return html`<${Loading} what="fire lag" />`;
  const s = lag.data.series;
  const x = s.map((p) => Date.parse(p.minute) / 1000);
  const fired = s.reduce((a, p) => a + p.fired, 0);
  const worst = Math.max(0, ...s.map((p) => p.p99Ms ?? 0));
  const summary = `Fire lag over the last ${s.length} minutes: ${num(fired)} timers fired; worst p99 ${num(worst)} ms.`;
  return html`<figure>
    <${Chart}
      x=${x}
      yLabel="ms late"
      summary=${summary}
      series=${[
        { label: 'p50', values: s.map((p) => p.p50Ms), color: '#1f6f8b' },
        { label: 'p99', values: s.map((p) => p.p99Ms), color: '#c0392b' },
      ]}
    />
    <figcaption>${summary} (Each value is the upper bound of its histogram bucket.)</figcaption>
  </figure>`;
}

export function Overview() {
  const { after, Pager } = usePager('overview');
  const q = useQuery(['overview', after ?? null], () => api().dashboard.overview({ after }), 5_000);
  return html`<section aria-labelledby="h-overview">
    <h1 id="h-overview">Overview</h1>
    <${Failure} error=${q.error} />
    ${
      q.data &&
      html`<p class="muted">
          As of ${new Date(q.data.at).toLocaleTimeString()} (refreshes every 5 s). ≈ marks an estimate, ≥ a count stopped at its cap.
        </p>
        <section aria-labelledby="h-warnings" class="warnings">
          <h2 id="h-warnings">Warnings</h2>
          ${
            q.data.warnings.length === 0
              ? html`<p class="ok-text">Nothing needs attention.</p>`
              : html`<ul>
                  ${q.data.warnings.map((w) => html`<li class="warning" data-code=${w.code}>${w.message}</li>`)}
                </ul>`
          }
        </section>
        <div class="scroll">
          <table class="overview">
            <caption>
              Queues of this tenant
            </caption>
            <thead>
              <tr>
                <th scope="col">Queue</th>
                <th scope="col">Pending</th>
                <th scope="col">Due next minute</th>
                <th scope="col">Due next hour</th>
                <th scope="col">Due next day</th>
                <th scope="col">Overdue</th>
                <th scope="col">Overdue over 5 s</th>
                <th scope="col">Claimed</th>
                <th scope="col">Fired last minute</th>
                <th scope="col">Fired last hour</th>
                <th scope="col">DLQ</th>
                <th scope="col">Log frames</th>
                <th scope="col">Consumer lag</th>
              </tr>
            </thead>
            <tbody>
              ${q.data.rows.map(
                (r) =>
                  html`<tr data-queue=${r.queue}>
                    <th scope="row"><${Link} href=${`${BASE}/queues/${seg(r.queue)}`}>${r.queue}<//></th>
                    <${CountCell} c=${r.pending} label="pending" col="pending" />
                    <${CountCell} c=${r.due.nextMinute} label="due next minute" col="dueMinute" />
                    <${CountCell} c=${r.due.nextHour} label="due next hour" col="dueHour" />
                    <${CountCell} c=${r.due.nextDay} label="due next day" col="dueDay" />
                    <${CountCell} c=${r.overdue} label="overdue" col="overdue" />
                    <${CountCell} c=${r.overdueOver5s} label="overdue by more than 5 s" col="overdue5s" />
                    <${CountCell} c=${r.claimed} label="claimed" col="claimed" />
                    <td class="num" data-col="firedMinute">${num(r.fired.lastMinute)}</td>
                    <td class="num" data-col="firedHour">${num(r.fired.lastHour)}</td>
                    <${CountCell} c=${r.deadLetters} label="dead letters" col="dlq" />
                    <${CountCell} c=${r.log.frames} label="log frames" col="frames" />
                    <td data-col="lag">
                      ${
                        r.log.groups.length === 0
                          ? html`<span class="muted">no groups</span>`
                          : r.log.groups.map((g) => html`<div data-group=${g.consumerGroup}>${lagWords(g)}</div>`)
                      }
                      ${r.log.groupsTruncated ? html`<div class="muted">more groups in the Log view</div>` : null}
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>
        ${q.data.rows.length === 0 ? html`<p>No queue yet: schedule a timer or push a frame and it appears here.</p>` : null}
        <${Pager} nextAfter=${q.data.nextAfter} truncated=${q.data.truncated} label="Queues" />`
    }
    ${!q.data && !q.error ? html`<${Loading} what="the overview" />` : null}
    <section aria-labelledby="h-lag">
      <h2 id="h-lag">Fire lag, last hour (all queues)</h2>
      <${FireLagChart} />
    </section>
  </section>`;
}
