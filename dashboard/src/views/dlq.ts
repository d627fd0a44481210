// DLQ: the tenant's dead letters with their error; replay where allowed. A timer's dead letter (a
// timer whose fire exhausted its attempts) never reached the log, so there is nothing to replay:
// the row says so.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { decodePayload, type DeadLetter } from '../../../sdk/src/index.ts';
import { api, errorText, invalidate, useQuery } from '../api.ts';
import { instant, num } from '../format.ts';
import { can, confirmAction, Failure, Loading, Outcome, useMe } from '../ui.ts';

const PAGE = 50;

function preview(d: DeadLetter): string {
  if (d.encrypted) return 'encrypted';
  const text = decodePayload(d.payload).text();
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

export function Dlq() {
  const me = useMe();
  const [offset, setOffset] = useState(0);
  const [queue, setQueue] = useState('');
  const [outcome, setOutcome] = useState<{ text: string; kind: 'ok' | 'error' } | null>(null);
  const q = useQuery(['dlq', queue, offset], () => api().deadLetters.list({ queue: queue || undefined, limit: PAGE, offset }), 10_000);

  const replay = async (d: DeadLetter) => {
    if (
      !(await confirmAction(
        `Replay dead letter ${d.id} into queue ${d.queue} (partition ${d.partition})? Consumers will receive it again.`,
      ))
    )
      return;
    try {
      const r = await api().deadLetters.replay(d.id);
      setOutcome({
        text: r.replayed ? `replayed ${d.id} as a new frame` : `not replayed: ${JSON.stringify(r)}`,
        kind: r.replayed ? 'ok' : 'error',
      });
      void invalidate('dlq');
      void invalidate('overview');
    } catch (e) {
      setOutcome({ text: errorText(e), kind: 'error' });
    }
  };

  return html`<section aria-labelledby="h-dlq">
    <h1 id="h-dlq">Dead letters</h1>
    <form class="row" role="search" onSubmit=${(e: Event) => (e.preventDefault(), setOffset(0))}>
      <label
        >Queue (empty: all) <input value=${queue} onInput=${(e: Event) => (setQueue((e.target as HTMLInputElement).value), setOffset(0))}
      /></label>
    </form>
    <${Outcome} text=${outcome?.text ?? null} kind=${outcome?.kind} />
    <${Failure} error=${q.error} />
    ${
      q.data &&
      html`<p data-testid="dlq-total">${num(q.data.total)} dead letter${q.data.total === 1 ? '' : 's'}${queue ? ` in ${queue}` : ''}.</p>
        <table class="dlq">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Queue</th>
              <th scope="col">Group</th>
              <th scope="col">Error</th>
              <th scope="col">Retries</th>
              <th scope="col">Payload</th>
              <th scope="col">Replay</th>
            </tr>
          </thead>
          <tbody>
            ${q.data.messages.map(
              (d) =>
                html`<tr data-id=${d.id}>
                  <td>${instant(d.createdAt)}</td>
                  <td>${d.queue}${d.timerKey ? html`<div class="muted">timer ${d.timerKey}</div>` : null}</td>
                  <td>${d.consumerGroup}</td>
                  <td class="error-text">${d.errorMessage ?? d.error}</td>
                  <td class="num">${d.retryCount}</td>
                  <td><code>${preview(d)}</code></td>
                  <td>
                    ${
                      d.fromTimer
                        ? html`<span class="muted"
                            >Not replayable: a timer that never fired (no frame reached the log); schedule it again.</span
                          >`
                        : can(me, 'produce')
                          ? html`<button type="button" onClick=${() => replay(d)} aria-label=${`Replay dead letter ${d.id}`}>
                              Replay
                            </button>`
                          : html`<span class="muted">needs the produce grant</span>`
                    }
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>
        <nav class="pager" aria-label="Dead letter pages">
          <button type="button" disabled=${offset === 0} onClick=${() => setOffset(Math.max(0, offset - PAGE))}>← Previous</button>
          <span>${q.data.total === 0 ? 0 : offset + 1}–${offset + q.data.messages.length} of ${num(q.data.total)}</span>
          <button type="button" disabled=${offset + q.data.messages.length >= q.data.total} onClick=${() => setOffset(offset + PAGE)}>
            Next →
          </button>
        </nav>`
    }
    ${!q.data && !q.error ? html`<${Loading} what="dead letters" />` : null}
  </section>`;
}
