// Log: one queue's partitions, consumer groups with their lag, the leases held now, and a frame
// browser (reading consumes nothing).
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { decodePayload } from '../../../sdk/src/index.ts';
import { api, useQuery } from '../api.ts';
import { duration, instant, num } from '../format.ts';
import { BASE, CountCell, Failure, Link, Loading, navigate, seg, usePager } from '../ui.ts';

/** A queue chooser whose choice is the URL (`base`/queue). */
export function QueuePicker({ base, current }: { base: string; current?: string }) {
  const q = useQuery(['queues'], () => api().dashboard.queues({ limit: 200 }), 30_000);
  return html`<form class="row" onSubmit=${(e: Event) => e.preventDefault()}>
    <label
      >Queue
      <select value=${current ?? ''} onChange=${(e: Event) => navigate(`${base}/${seg((e.target as HTMLSelectElement).value)}`)}>
        <option value="" disabled>choose a queue</option>
        ${(q.data?.rows ?? []).map((r) => html`<option value=${r.queue}>${r.queue}</option>`)}
        ${current && q.data && !q.data.rows.some((r) => r.queue === current) ? html`<option value=${current}>${current}</option>` : null}
      </select>
    </label>
    ${q.data?.truncated ? html`<span class="muted">(first 200 queues)</span>` : null}
  </form>`;
}

function Partitions({ queue, onBrowse }: { queue: string; onBrowse: (p: string) => void }) {
  const { after, Pager } = usePager(queue);
  const q = useQuery(['partitions', queue, after ?? null], () => api().dashboard.partitions(queue, { after }), 10_000);
  return html`<section aria-labelledby="h-partitions">
    <h2 id="h-partitions">Partitions</h2>
    <${Failure} error=${q.error} />
    ${
      q.data &&
      html`<table class="partitions">
          <thead>
            <tr>
              <th scope="col">Partition</th>
              <th scope="col">Frames</th>
              <th scope="col">Last seq</th>
              <th scope="col">Created</th>
              <th scope="col"><span class="sr-only">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            ${q.data.rows.map(
              (p) =>
                html`<tr data-partition=${p.partition}>
                  <th scope="row">${p.partition}</th>
                  <${CountCell} c=${p.frames} col="frames" />
                  <td class="num">${p.lastSeq ?? '—'}</td>
                  <td>${instant(p.createdAt)}</td>
                  <td>
                    <button type="button" onClick=${() => onBrowse(p.partition)} aria-label=${`Browse frames of partition ${p.partition}`}>
                      Browse frames
                    </button>
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>
        <${Pager} nextAfter=${q.data.nextAfter} truncated=${q.data.truncated} label="Partitions" />`
    }
  </section>`;
}

function Groups({ queue }: { queue: string }) {
  const { after, Pager } = usePager(queue);
  const q = useQuery(['groups', queue, after ?? null], () => api().dashboard.groups(queue, { after }), 5_000);
  return html`<section aria-labelledby="h-groups">
    <h2 id="h-groups">Consumer groups</h2>
    <${Failure} error=${q.error} />
    ${
      q.data &&
      html`<table class="groups">
          <thead>
            <tr>
              <th scope="col">Group</th>
              <th scope="col">Frames behind</th>
              <th scope="col">Partitions behind</th>
              <th scope="col">Oldest unconsumed</th>
              <th scope="col">Leases held</th>
            </tr>
          </thead>
          <tbody>
            ${q.data.rows.map(
              (g) =>
                html`<tr data-group=${g.consumerGroup}>
                  <th scope="row">${g.consumerGroup}</th>
                  <${CountCell} c=${g.framesBehind} col="behind" />
                  <${CountCell} c=${g.partitionsBehind} col="partitionsBehind" />
                  <td>
                    ${g.oldestUnconsumedAt ? `${instant(g.oldestUnconsumedAt)} (${duration(g.oldestUnconsumedAgeSeconds)} old)` : 'none'}
                  </td>
                  <td class="num" data-col="leases">${num(g.leasesHeld)}</td>
                </tr>`,
            )}
          </tbody>
        </table>
        ${q.data.rows.length === 0 ? html`<p>No consumer group has read this queue.</p>` : null}
        <${Pager} nextAfter=${q.data.nextAfter} truncated=${q.data.truncated} label="Groups" />`
    }
  </section>`;
}

function Leases({ queue }: { queue: string }) {
  const { after, Pager } = usePager(queue);
  const q = useQuery(['leases', queue, after ?? null], () => api().dashboard.leases(queue, { after }), 5_000);
  return html`<section aria-labelledby="h-leases">
    <h2 id="h-leases">Leases held</h2>
    <${Failure} error=${q.error} />
    ${
      q.data &&
      (q.data.rows.length === 0
        ? html`<p>No lease is held now.</p>`
        : html`<table class="leases">
            <thead>
              <tr>
                <th scope="col">Group</th>
                <th scope="col">Partition</th>
                <th scope="col">Expires</th>
                <th scope="col">Batch ends at seq</th>
              </tr>
            </thead>
            <tbody>
              ${q.data.rows.map(
                (l) =>
                  html`<tr>
                    <td>${l.consumerGroup}</td>
                    <td>${l.partition}</td>
                    <td>${instant(l.expiresAt)}</td>
                    <td class="num">${l.batchEndSeq}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`)
    }
    ${q.data ? html`<${Pager} nextAfter=${q.data.nextAfter} truncated=${q.data.truncated} label="Leases" />` : null}
  </section>`;
}

function payloadWords(base64: string, encrypted: boolean): string {
  if (encrypted) return 'encrypted';
  const text = decodePayload(base64).text();
  if (text.includes('\uFFFD')) return `${num(decodePayload(base64).bytes.length)} bytes (binary)`;
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

function Frames({ queue, partition }: { queue: string; partition: string }) {
  const { after, Pager } = usePager(`${queue}|${partition}`);
  const q = useQuery(['frames', queue, partition, after ?? null], () => api().dashboard.frames(queue, { partition, after, limit: 50 }));
  return html`<section aria-labelledby="h-frames">
    <h2 id="h-frames">Frames of partition <code>${partition}</code></h2>
    <${Failure} error=${q.error} />
    ${
      q.data &&
      html`<table class="frames">
          <thead>
            <tr>
              <th scope="col">Seq</th>
              <th scope="col">Written</th>
              <th scope="col">Timer key</th>
              <th scope="col">Producer</th>
              <th scope="col">Bytes</th>
              <th scope="col">Payload</th>
            </tr>
          </thead>
          <tbody>
            ${q.data.rows.map(
              (f) =>
                html`<tr data-seq=${f.seq}>
                  <td class="num">${f.seq}</td>
                  <td>${instant(f.createdAt)}</td>
                  <td>${f.timerKey ?? '—'}</td>
                  <td>${f.producerSub}</td>
                  <td class="num">${num(f.bytes)}</td>
                  <td><code>${payloadWords(f.payload, f.encrypted)}</code></td>
                </tr>`,
            )}
          </tbody>
        </table>
        ${q.data.rows.length === 0 ? html`<p>No frame here.</p>` : null}
        <${Pager} nextAfter=${q.data.nextAfter} truncated=${q.data.truncated} label="Frames" />`
    }
    ${!q.data && !q.error ? html`<${Loading} what="frames" />` : null}
  </section>`;
}

export function Log({ queue }: { queue?: string }) {
  const [partition, setPartition] = useState<string>('Default');
  return html`<section aria-labelledby="h-log">
    <h1 id="h-log">Log${queue ? html` <code>${queue}</code>` : ''}</h1>
    <${QueuePicker} base=${`${BASE}/log`} current=${queue} />
    ${
      queue
        ? html`<${Groups} queue=${queue} />
            <${Partitions} queue=${queue} onBrowse=${setPartition} />
            <${Leases} queue=${queue} />
            <${Frames} queue=${queue} partition=${partition} />
            <p><${Link} href=${`${BASE}/queues/${seg(queue)}`}>This queue's timers<//></p>`
        : html`<p>Choose a queue to see its log.</p>`
    }
  </section>`;
}
