// Operator (a token with the admin grant of the operator tenant): tenants and their plans (edit),
// the cluster flags (produce block, sweeper pause), and this tenant's usage.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import type { PlanChange, TenantPlan } from '../../../sdk/src/index.ts';
import { api, errorText, invalidate, useQuery } from '../api.ts';
import { num } from '../format.ts';
import { confirmAction, Failure, Loading, Outcome, usePager } from '../ui.ts';

const LIMITS: { field: keyof PlanChange & keyof TenantPlan; label: string }[] = [
  { field: 'maxPayloadBytes', label: 'Max payload (bytes)' },
  { field: 'horizonSeconds', label: 'Horizon (seconds)' },
  { field: 'maxPendingTimers', label: 'Max pending timers' },
  { field: 'scheduleRatePerSecond', label: 'Schedule rate (per second)' },
  { field: 'storageLimitBytes', label: 'Storage limit (bytes)' },
];

function PlanEditor({ plan, onDone }: { plan: TenantPlan; onDone: () => void }) {
  const [values, setValues] = useState<Record<string, string>>(Object.fromEntries(LIMITS.map((l) => [l.field, String(plan[l.field])])));
  const [paused, setPaused] = useState(plan.schedulePaused);
  const [outcome, setOutcome] = useState<{ text: string; kind: 'ok' | 'error' } | null>(null);
  const save = async (e: Event) => {
    e.preventDefault();
    const change: PlanChange = { schedulePaused: paused };
    for (const l of LIMITS)
      if (values[l.field] !== String(plan[l.field])) (change as Record<string, number>)[l.field] = Number(values[l.field]);
    try {
      await api().admin.setPlan(plan.tenant, change);
      setOutcome({ text: `saved the plan of ${plan.tenant}`, kind: 'ok' });
      await invalidate('tenants');
    } catch (err) {
      setOutcome({ text: errorText(err), kind: 'error' });
    }
  };
  return html`<form class="panel editor" onSubmit=${save} aria-labelledby="h-plan">
    <h3 id="h-plan">Plan of <code>${plan.tenant}</code></h3>
    ${LIMITS.map(
      (l) =>
        html`<label
          >${l.label}
          <input
            type="number"
            min="0"
            name=${l.field}
            value=${values[l.field]}
            onInput=${(e: Event) => setValues({ ...values, [l.field]: (e.target as HTMLInputElement).value })}
        /></label>`,
    )}
    <label class="check"
      ><input
        type="checkbox"
        name="schedulePaused"
        checked=${paused}
        onChange=${(e: Event) => setPaused((e.target as HTMLInputElement).checked)}
      />
      Schedules paused</label
    >
    <div class="row">
      <button type="submit">Save plan</button>
      <button type="button" onClick=${onDone}>Close</button>
    </div>
    <${Outcome} text=${outcome?.text ?? null} kind=${outcome?.kind} />
  </form>`;
}

function Tenants() {
  const { after, Pager } = usePager('tenants');
  const [editing, setEditing] = useState<string | null>(null);
  const q = useQuery(['tenants', after ?? null], () => api().admin.tenants({ after, limit: 50 }), 30_000);
  const plan = q.data?.rows.find((r) => r.tenant === editing);
  return html`<section aria-labelledby="h-tenants">
    <h2 id="h-tenants">Tenants and plans</h2>
    <${Failure} error=${q.error} />
    ${plan ? html`<${PlanEditor} plan=${plan} onDone=${() => setEditing(null)} />` : null}
    ${
      q.data &&
      html`<div class="scroll">
          <table class="tenants">
            <thead>
              <tr>
                <th scope="col">Tenant</th>
                ${LIMITS.map((l) => html`<th scope="col">${l.label}</th>`)}
                <th scope="col">Schedules paused</th>
                <th scope="col"><span class="sr-only">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              ${q.data.rows.map(
                (t) =>
                  html`<tr data-tenant=${t.tenant}>
                    <th scope="row">${t.tenant}</th>
                    ${LIMITS.map((l) => html`<td class="num" data-col=${l.field}>${num(t[l.field] as number)}</td>`)}
                    <td>${t.schedulePaused ? 'yes' : 'no'}</td>
                    <td>
                      <button type="button" onClick=${() => setEditing(t.tenant)} aria-label=${`Edit the plan of ${t.tenant}`}>Edit</button>
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>
        <${Pager} nextAfter=${q.data.nextAfter} truncated=${q.data.truncated} label="Tenants" />`
    }
    ${!q.data && !q.error ? html`<${Loading} what="tenants" />` : null}
  </section>`;
}

function Cluster() {
  const q = useQuery(['cluster'], () => api().admin.cluster(), 10_000);
  const [outcome, setOutcome] = useState<{ text: string; kind: 'ok' | 'error' } | null>(null);
  const flip = async (flag: 'produceBlocked' | 'sweeperPaused', to: boolean) => {
    const words =
      flag === 'produceBlocked'
        ? to
          ? 'Block producing for every tenant'
          : 'Allow producing again'
        : to
          ? 'Pause every sweeper (no timer fires)'
          : 'Resume the sweepers';
    if (to && !(await confirmAction(`${words}? This affects the whole cluster.`))) return;
    try {
      const r = await api().admin.setCluster({ [flag]: to });
      setOutcome({
        text: `produce ${r.produceBlocked ? 'blocked' : 'allowed'}; sweeper ${r.sweeperPaused ? 'paused' : 'running'}`,
        kind: 'ok',
      });
      void invalidate('cluster');
    } catch (e) {
      setOutcome({ text: errorText(e), kind: 'error' });
    }
  };
  return html`<section aria-labelledby="h-cluster">
    <h2 id="h-cluster">Cluster flags</h2>
    <${Failure} error=${q.error} />
    ${
      q.data &&
      html`<dl class="facts" data-testid="cluster">
        <dt>Producing</dt>
        <dd>
          ${q.data.produceBlocked ? 'BLOCKED' : 'allowed'}
          <button type="button" onClick=${() => flip('produceBlocked', !q.data!.produceBlocked)}>
            ${q.data.produceBlocked ? 'Allow producing' : 'Block producing'}
          </button>
        </dd>
        <dt>Sweeper</dt>
        <dd>
          ${q.data.sweeperPaused ? 'PAUSED' : 'running'}
          <button type="button" onClick=${() => flip('sweeperPaused', !q.data!.sweeperPaused)}>
            ${q.data.sweeperPaused ? 'Resume sweepers' : 'Pause sweepers'}
          </button>
        </dd>
      </dl>`
    }
    <${Outcome} text=${outcome?.text ?? null} kind=${outcome?.kind} />
  </section>`;
}

function Usage() {
  const q = useQuery(['usage'], () => api().usage(), 60_000);
  return html`<section aria-labelledby="h-usage">
    <h2 id="h-usage">Usage</h2>
    <${Failure} error=${q.error} />
    ${q.data && html`<p data-testid="usage">Tenant ${q.data.tenant}, ${q.data.period}: ${num(q.data.messages)} billed messages.</p>`}
  </section>`;
}

export function Operator() {
  return html`<section aria-labelledby="h-operator">
    <h1 id="h-operator">Operator</h1>
    <${Cluster} />
    <${Tenants} />
    <${Usage} />
  </section>`;
}
