// Schedules: one queue's recurring schedules (cron, zone, next and last occurrence), one
// schedule's next occurrences with the daylight-saving shifts flagged, and create/edit/delete.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { decodePayload, type ScheduleOccurrence, type ScheduleRow } from '../../../sdk/src/index.ts';
import { api, errorText, invalidate, useQuery } from '../api.ts';
import { instant, relative } from '../format.ts';
import { BASE, can, confirmAction, Failure, Loading, Outcome, useMe, usePager } from '../ui.ts';
import { QueuePicker } from './log.ts';

type Occurrence = ScheduleOccurrence;

/** What daylight saving time does to an occurrence, in words (the API's flags); null: nothing. */
function shiftWords(o: Occurrence): string | null {
  if (o.dstShift === 'skipped') return 'DST: this wall-clock time does not exist that day (clocks spring forward); it fires at the shift';
  if (o.dstShift === 'repeated') return 'DST: this wall-clock time happens twice that day (clocks fall back); it fires the first time';
  return o.offsetChanged ? `DST: the zone's offset changes before this one (now ${offsetOf(o.local)})` : null;
}

/** The UTC offset a `local` instant carries ("2026-03-29T03:00:00+02:00" → "+02:00"). */
const offsetOf = (local: string) => /([+-]\d\d:\d\d|Z)$/.exec(local)?.[1] ?? '';

function Detail({
  queue,
  scheduleKey,
  onEdit,
  onDeleted,
}: {
  queue: string;
  scheduleKey: string;
  onEdit: (s: ScheduleRow) => void;
  onDeleted: () => void;
}) {
  const me = useMe();
  const [outcome, setOutcome] = useState<{ text: string; kind: 'ok' | 'error' } | null>(null);
  const q = useQuery(['schedule', queue, scheduleKey], () => api().schedules.get(queue, scheduleKey, { occurrences: 10 }), 30_000);
  const remove = async () => {
    if (!(await confirmAction(`Delete schedule "${scheduleKey}" in queue ${queue}? Its future occurrences will not fire.`))) return;
    try {
      const r = await api().schedules.delete(queue, scheduleKey);
      setOutcome({ text: r.status, kind: 'ok' });
      void invalidate('schedules', queue);
      onDeleted();
    } catch (e) {
      setOutcome({ text: errorText(e), kind: 'error' });
    }
  };
  const s = q.data;
  return html`<section class="panel" aria-labelledby="h-schedule">
    <h2 id="h-schedule">Schedule <code>${scheduleKey}</code></h2>
    <${Failure} error=${q.error} />
    ${s && !s.found ? html`<p>No such schedule (deleted?).</p>` : null}
    ${
      s?.found &&
      html`<dl class="facts">
          <dt>Cron</dt>
          <dd><code>${s.cron}</code></dd>
          <dt>Zone</dt>
          <dd>${s.timezone}</dd>
          <dt>Last fire</dt>
          <dd>${s.lastAt ? `${instant(s.lastAt)} (${relative(s.lastAt)})` : 'not yet'}</dd>
          <dt>Revision</dt>
          <dd>${s.revision}</dd>
        </dl>
        <table class="occurrences">
          <caption>
            Next occurrences
          </caption>
          <thead>
            <tr>
              <th scope="col">On the schedule's clock</th>
              <th scope="col">Your time</th>
              <th scope="col">Note</th>
            </tr>
          </thead>
          <tbody>
            ${s.nextOccurrences.map((o) => {
              const note = shiftWords(o);
              return html`<tr class=${note ? 'dst' : ''} data-dst=${note ? 'yes' : 'no'}>
                <td><code>${o.local}</code></td>
                <td>${instant(o.at)}</td>
                <td>${note ? html`<strong>${note}</strong>` : ''}</td>
              </tr>`;
            })}
          </tbody>
        </table>
        ${
          can(me, 'produce')
            ? html`<div class="row actions">
                <button type="button" onClick=${() => onEdit(s as unknown as ScheduleRow)}>Edit</button>
                <button type="button" class="danger" onClick=${remove}>Delete schedule</button>
              </div>`
            : null
        }`
    }
    <${Outcome} text=${outcome?.text ?? null} kind=${outcome?.kind} />
  </section>`;
}

interface Draft {
  scheduleKey: string;
  cron: string;
  timezone: string;
  payload: string;
  partition: string;
  editing: boolean;
}
const EMPTY: Draft = { scheduleKey: '', cron: '0 9 * * *', timezone: 'UTC', payload: '{}', partition: '', editing: false };

function Editor({
  queue,
  draft,
  onSaved,
  onCancel,
}: {
  queue: string;
  draft: Draft;
  onSaved: (key: string) => void;
  onCancel: () => void;
}) {
  const [d, setD] = useState(draft);
  useEffect(() => setD(draft), [draft]);
  const [outcome, setOutcome] = useState<{ text: string; kind: 'ok' | 'error' } | null>(null);
  const field = (name: keyof Draft) => (e: Event) => setD({ ...d, [name]: (e.target as HTMLInputElement).value });
  const save = async (e: Event) => {
    e.preventDefault();
    let payload: unknown;
    try {
      payload = JSON.parse(d.payload);
    } catch {
      payload = d.payload; // not JSON: sent as text
    }
    try {
      const r = await api().schedules.put({
        queue,
        scheduleKey: d.scheduleKey,
        cron: d.cron,
        timezone: d.timezone || undefined,
        payload: payload as never,
        partition: d.partition || undefined,
      });
      setOutcome({ text: `${r.status}; next ${instant(r.nextAt)}`, kind: 'ok' });
      void invalidate('schedules', queue);
      void invalidate('schedule', queue, d.scheduleKey);
      onSaved(d.scheduleKey);
    } catch (err) {
      setOutcome({ text: errorText(err), kind: 'error' });
    }
  };
  return html`<form class="panel editor" onSubmit=${save} aria-labelledby="h-editor">
    <h2 id="h-editor">${d.editing ? `Edit schedule ${d.scheduleKey}` : 'New schedule'}</h2>
    <label>Key <input required value=${d.scheduleKey} readonly=${d.editing} onInput=${field('scheduleKey')} /></label>
    <label>Cron (5 or 6 fields) <input required value=${d.cron} onInput=${field('cron')} /></label>
    <label>Zone (IANA) <input value=${d.timezone} onInput=${field('timezone')} /></label>
    <label>Partition <input value=${d.partition} placeholder="Default" onInput=${field('partition')} /></label>
    <label>Payload (JSON, else sent as text) <textarea rows="3" onInput=${field('payload')}>${d.payload}</textarea></label>
    <div class="row">
      <button type="submit">Save</button>
      <button type="button" onClick=${onCancel}>Cancel</button>
    </div>
    <${Outcome} text=${outcome?.text ?? null} kind=${outcome?.kind} />
  </form>`;
}

export function Schedules({ queue }: { queue?: string }) {
  const me = useMe();
  const [open, setOpen] = useState<string | null>(null);
  const [draft, setDraft] = useState<Draft | null>(null);
  const { after, Pager } = usePager(queue ?? '');
  const list = useQuery(['schedules', queue ?? '', after ?? null], () => api().schedules.list(queue!, { after }), 15_000, !!queue);
  const edit = (s: ScheduleRow & { payload?: string }) => {
    const text = s.payload && !s.encrypted && !s.payloadZstd ? decodePayload(s.payload).text() : '';
    setDraft({ scheduleKey: s.scheduleKey, cron: s.cron, timezone: s.timezone, payload: text, partition: s.partition, editing: true });
  };
  return html`<section aria-labelledby="h-schedules">
    <h1 id="h-schedules">Schedules${queue ? html` <code>${queue}</code>` : ''}</h1>
    <${QueuePicker} base=${`${BASE}/schedules`} current=${queue} />
    ${!queue ? html`<p>Choose a queue to see its schedules.</p>` : null}
    ${queue && can(me, 'produce') ? html`<p><button type="button" onClick=${() => setDraft({ ...EMPTY })}>New schedule</button></p>` : null}
    ${queue && draft ? html`<${Editor} queue=${queue} draft=${draft} onSaved=${(k: string) => (setDraft(null), setOpen(k))} onCancel=${() => setDraft(null)} />` : null}
    ${queue && open ? html`<${Detail} queue=${queue} scheduleKey=${open} onEdit=${edit} onDeleted=${() => setOpen(null)} />` : null}
    <${Failure} error=${list.error} />
    ${
      list.data &&
      html`<table class="schedules">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Cron</th>
              <th scope="col">Zone</th>
              <th scope="col">Next</th>
              <th scope="col">Last fire</th>
            </tr>
          </thead>
          <tbody>
            ${list.data.rows.map(
              (s) =>
                html`<tr data-key=${s.scheduleKey}>
                  <th scope="row">
                    <button
                      type="button"
                      class="linkish"
                      onClick=${() => setOpen(s.scheduleKey)}
                      aria-label=${`Open schedule ${s.scheduleKey}`}
                    >
                      ${s.scheduleKey}
                    </button>
                  </th>
                  <td><code>${s.cron}</code></td>
                  <td>${s.timezone}</td>
                  <td>${instant(s.nextAt)}</td>
                  <td>${s.lastAt ? instant(s.lastAt) : 'not yet'}</td>
                </tr>`,
            )}
          </tbody>
        </table>
        ${list.data.rows.length === 0 ? html`<p>No schedule in this queue.</p>` : null}
        <${Pager} nextAfter=${list.data.nextAfter} truncated=${list.data.truncated} label="Schedules" />`
    }
    ${queue && !list.data && !list.error ? html`<${Loading} what="schedules" />` : null}
  </section>`;
}
