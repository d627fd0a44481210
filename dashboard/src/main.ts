// The dashboard's entry: sign-in, the navigation the token's grants allow, the outage banner, and
// the router from the path under /ui to a view.
import { render } from 'preact';
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { createClient, type Whoami } from '../../sdk/src/index.ts';
import { api, errorText, outage, queryClient, signInReason, storedToken, storeToken, tokenVersion, useQuery, useSignal } from './api.ts';
import { BASE, can, ConfirmDialog, Link, Me, usePath } from './ui.ts';
import { Dlq } from './views/dlq.ts';
import { Log } from './views/log.ts';
import { Overview } from './views/overview.ts';
import { Operator } from './views/operator.ts';
import { Queue } from './views/queue.ts';
import { Schedules } from './views/schedules.ts';

function SignIn({ reason }: { reason: string | null }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const t = token.trim().replace(/^Bearer\s+/i, '');
    if (!t) return setError('Paste a token first.');
    setBusy(true);
    try {
      // Checked before it is kept: a wrong token stays out of storage.
      await createClient({ baseUrl: location.origin, token: t, retry: false }).whoami();
      storeToken(t);
      signInReason.set(null);
    } catch (err) {
      setError(`This token was refused: ${errorText(err)}`);
    } finally {
      setBusy(false);
    }
  };
  return html`<main id="main" class="signin">
    <h1>queen-timers dashboard</h1>
    ${reason ? html`<p class="error" role="alert">${reason}</p>` : null}
    <form onSubmit=${submit}>
      <label for="token">Token (a JWT; kept in this browser tab only, never in a URL)</label>
      <textarea
        id="token"
        name="token"
        rows="4"
        autocomplete="off"
        spellcheck=${false}
        value=${token}
        onInput=${(e: Event) => setToken((e.target as HTMLTextAreaElement).value)}
      ></textarea>
      <button type="submit" disabled=${busy}>Sign in</button>
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    </form>
    <p class="muted">
      The dev broker (<code>npm start</code>) prints a dev token and an operator token. The API is also at <a href="/docs">/docs</a>.
    </p>
  </main>`;
}

/** The path under /ui as a view and its parameter. */
function route(path: string): { view: string; arg?: string } {
  const rest = path.startsWith(BASE) ? path.slice(BASE.length) : path;
  const parts = rest.split('/').filter(Boolean).map(decodeURIComponent);
  return { view: parts[0] ?? '', arg: parts[1] };
}

function NotAllowed({ what }: { what: string }) {
  return html`<section>
    <h1>Not available</h1>
    <p>This token's grants do not allow ${what}.</p>
  </section>`;
}

function Shell({ me }: { me: Whoami }) {
  const path = usePath();
  const down = useSignal(outage);
  const { view, arg } = route(path);
  const reads = can(me, 'read');
  const nav = [
    reads && { href: `${BASE}`, label: 'Overview', on: view === '' || view === 'queues' },
    reads && { href: `${BASE}/log`, label: 'Log', on: view === 'log' },
    reads && { href: `${BASE}/dlq`, label: 'DLQ', on: view === 'dlq' },
    reads && { href: `${BASE}/schedules`, label: 'Schedules', on: view === 'schedules' },
    me.operator && { href: `${BASE}/operator`, label: 'Operator', on: view === 'operator' },
  ].filter(Boolean) as { href: string; label: string; on: boolean }[];
  const signOut = () => {
    storeToken(null);
    queryClient.clear();
    signInReason.set('Signed out.');
  };
  let body;
  if (view === 'operator')
    body = me.operator ? html`<${Operator} />` : html`<${NotAllowed} what="the operator views (admin grant of the operator tenant)" />`;
  else if (!reads)
    body = me.operator && view === '' ? html`<${Operator} />` : html`<${NotAllowed} what="reading this tenant (read grant)" />`;
  else if (view === '') body = html`<${Overview} />`;
  else if (view === 'queues' && arg) body = html`<${Queue} queue=${arg} />`;
  else if (view === 'log') body = html`<${Log} queue=${arg} />`;
  else if (view === 'dlq') body = html`<${Dlq} />`;
  else if (view === 'schedules') body = html`<${Schedules} queue=${arg} />`;
  else
    body = html`<section>
      <h1>No such view</h1>
      <p><${Link} href=${BASE}>Go to the overview<//></p>
    </section>`;
  return html`<${Me.Provider} value=${me}>
    <a class="skip" href="#main">Skip to content</a>
    <header>
      <span class="brand">queen-timers</span>
      <nav aria-label="Views">
        ${nav.map((n) => html`<${Link} href=${n.href} aria-current=${n.on ? 'page' : undefined}>${n.label}<//>`)}
      </nav>
      <span class="who" data-testid="whoami"
        >tenant <strong>${me.tenant}</strong> · ${me.sub} · grants: ${me.grants.join(', ') || 'none'}</span
      >
      <button type="button" onClick=${signOut}>Sign out</button>
    </header>
    ${down ? html`<p class="banner" role="alert">Database unavailable, retrying…</p>` : null}
    <main id="main" tabindex="-1">${body}</main>
    <${ConfirmDialog} />
  <//>`;
}

function SignedIn() {
  const me = useQuery(['whoami'], () => api().dashboard.whoami(), 60_000);
  const down = useSignal(outage);
  if (me.data) return html`<${Shell} me=${me.data} />`;
  if (me.error && !down) return html`<main id="main"><p class="error" role="alert">${errorText(me.error)}</p></main>`;
  return html`<main id="main">
    ${down ? html`<p class="banner" role="alert">Database unavailable, retrying…</p>` : html`<p>Signing in…</p>`}
  </main>`;
}

function App() {
  const reason = useSignal(signInReason);
  useSignal(tokenVersion);
  if (!storedToken() || reason) return html`<${SignIn} reason=${reason} />`;
  return html`<${SignedIn} />`;
}

// /ui/ and /ui are the same view; a path outside /ui never reaches this page.
if (location.pathname === `${BASE}/`) history.replaceState(null, '', BASE);
const root = document.getElementById('app')!;
root.textContent = '';
render(html`<${App} />`, root);
