// The pieces every view uses: the router (path under /ui → view), links, the confirmation dialog,
// count cells, a keyset pager, and the "what may this token do" context.
import { createContext, type ComponentChildren } from 'preact';
import { html } from 'htm/preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import type { Count, Whoami } from '../../sdk/src/index.ts';
import { errorText } from './api.ts';
import { basisWords, count } from './format.ts';

export const BASE = '/ui';

// ---- routing: the path is the view, so each view can be bookmarked and shared.
const listeners = new Set<() => void>();
export function navigate(path: string): void {
  history.pushState(null, '', path);
  for (const l of listeners) l();
}
export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return path;
}
/** A path segment, escaped (queue names and keys may hold '/', '?', '%'). */
export const seg = (s: string): string => encodeURIComponent(s);

export function Link({ href, children, ...rest }: { href: string; children: ComponentChildren; [k: string]: unknown }) {
  const click = (e: MouseEvent) => {
    if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    navigate(href);
  };
  return html`<a href=${href} onClick=${click} ...${rest}>${children}</a>`;
}

// ---- what the token may do (GET /api/v1/whoami).
export const Me = createContext<Whoami>({ tenant: '', sub: '', grants: [], operator: false });
export const useMe = () => useContext(Me);
export const can = (me: Whoami, grant: 'produce' | 'consume' | 'read' | 'admin') => me.grants.includes(grant);

// ---- confirmation of destructive actions: a modal <dialog> (focus stays in it; Escape cancels).
let openConfirm: ((text: string, resolve: (ok: boolean) => void) => void) | null = null;
export const confirmAction = (text: string): Promise<boolean> =>
  new Promise((resolve) => (openConfirm ? openConfirm(text, resolve) : resolve(window.confirm(text))));

export function ConfirmDialog() {
  const ref = useRef<HTMLDialogElement>(null);
  const [state, setState] = useState<{ text: string; resolve: (ok: boolean) => void } | null>(null);
  useEffect(() => {
    openConfirm = (text, resolve) => setState({ text, resolve });
    return () => void (openConfirm = null);
  }, []);
  useEffect(() => {
    if (state && ref.current && !ref.current.open) ref.current.showModal();
  }, [state]);
  const close = (ok: boolean) => {
    ref.current?.close();
    state?.resolve(ok);
    setState(null);
  };
  return html`<dialog ref=${ref} aria-labelledby="confirm-text" onCancel=${(e: Event) => (e.preventDefault(), close(false))}>
    <p id="confirm-text">${state?.text}</p>
    <div class="row">
      <button type="button" class="danger" onClick=${() => close(true)}>Confirm</button>
      <button type="button" autofocus onClick=${() => close(false)}>Keep it</button>
    </div>
  </dialog>`;
}

// ---- small parts.
export function CountCell({ c, label, col }: { c: Count; label?: string; col?: string }) {
  return html`<td
    class="num"
    title=${basisWords(c)}
    data-basis=${c.basis}
    data-col=${col}
    aria-label=${label ? `${label}: ${count(c)}, ${basisWords(c)}` : undefined}
  >
    ${count(c)}
  </td>`;
}

export function Failure({ error }: { error: unknown }) {
  return error ? html`<p class="error" role="alert">${errorText(error)}</p>` : null;
}

export function Loading({ what }: { what: string }) {
  return html`<p class="muted" aria-live="polite">Loading ${what}…</p>`;
}

/** Keyset paging: a stack of cursors so "Previous" goes back; "Next" takes the page's nextAfter. */
export function usePager(resetKey: string) {
  const [stack, setStack] = useState<(string | undefined)[]>([undefined]);
  useEffect(() => setStack([undefined]), [resetKey]);
  const after = stack[stack.length - 1];
  return {
    after,
    page: stack.length,
    Pager: ({ nextAfter, truncated, label }: { nextAfter: string | null | undefined; truncated: boolean; label: string }) =>
      html`<nav class="pager" aria-label=${`${label} pages`}>
        <button type="button" disabled=${stack.length === 1} onClick=${() => setStack(stack.slice(0, -1))}>← Previous</button>
        <span>page ${stack.length}</span>
        <button type="button" disabled=${!truncated || !nextAfter} onClick=${() => setStack([...stack, nextAfter ?? undefined])}>
          Next →
        </button>
      </nav>`,
  };
}

/** A live region an action writes its outcome to (screen readers announce it). */
export function Outcome({ text, kind = 'ok' }: { text: string | null; kind?: 'ok' | 'error' }) {
  return html`<p class=${`outcome ${kind}`} role="status" aria-live="polite">${text ?? ''}</p>`;
}
