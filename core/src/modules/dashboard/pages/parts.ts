import { Refusal } from '../../../kernel/refusal.ts';
import { CsrfField, Field, html, Layout, type Children, type VNode } from '../../../web/html.ts';
import type { Mode } from '../../../kernel/tenant.ts';
import type { Scope } from '../../../kernel/scopes.ts';
import { navScope, otherModeHint } from '../dashboard-grants.ts';
import { fieldMessage, merchantMessage } from './words.ts';

/** What every signed-in page knows of its session. */
export interface PageSession {
  resellerName: string;
  mode: Mode;
  csrfToken: string;
  /** Whether the session may switch mode (a back-office link's); a key's stays in the key's mode. */
  switchable: boolean;
  /** Whether the session's key has the scope: a page offers no link or form it could not follow. */
  can(scope: Scope): boolean;
}

export const NAV = [
  { href: '/dashboard', label: 'Home' },
  { href: '/dashboard/stores', label: 'Stores' },
  { href: '/dashboard/products', label: 'Products' },
  { href: '/dashboard/orders', label: 'Orders' },
  { href: '/dashboard/webhooks', label: 'Webhooks' },
];

const EXTRA_CSS = `
header nav{display:flex;flex-wrap:wrap;gap:.25rem 1rem;min-width:0}header nav a{margin-right:0}
.mode{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:-.5rem 0 1rem}.mode .badge{font-weight:600}
.badge{display:inline-block;padding:0 .45rem;border-radius:3px;border:1px solid var(--line);font-size:12px}
.badge.test{background:var(--warn);color:#fff;border-color:var(--warn)}.badge.bad{background:var(--bad);color:#fff;border-color:var(--bad)}.badge.good{background:var(--ok);color:#fff;border-color:var(--ok)}
.notice{border-left:4px solid var(--ok);padding:.4rem .8rem;margin:0 0 1rem}.alert{border-left:4px solid var(--bad);padding:.4rem .8rem;margin:0 0 1rem}
section{margin:1.5rem 0}h2{font-size:1.15rem;margin:.2rem 0 .6rem}form.stack{max-width:32rem}form.stack button{margin-top:.8rem}
.grid{display:grid;gap:1rem;grid-template-columns:repeat(auto-fit,minmax(16rem,1fr))}.card{border:1px solid var(--line);border-radius:6px;padding:.8rem}
.secret{font-family:monospace;word-break:break-all;padding:.4rem;border:1px dashed var(--line)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}dl.facts dt{font-weight:600}dl.facts dd{margin:0}
label.check{display:flex;align-items:center;gap:.5rem;font-weight:400}label.check input{margin:0}
.filters{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:end}.filters label{margin:0}
`;

/** A dashboard page: navigation, the mode (with its switch) and the sign-out form. */
export function DashLayout(props: {
  title: string;
  session: PageSession;
  notice?: string | undefined;
  error?: string | undefined;
  children?: Children;
}): VNode {
  const other: Mode = props.session.mode === 'live' ? 'test' : 'live';
  const nav = NAV.filter((n) => {
    const scope = navScope(n.href);
    return !scope || props.session.can(scope);
  });
  return html`<${Layout} title=${props.title} product=${`${props.session.resellerName} · Print dashboard`} nav=${nav} signOut=${{ action: '/dashboard/sign-out', csrfToken: props.session.csrfToken }}>
    <style>${EXTRA_CSS}</style>
    <div class="mode">
      <span>Mode: <span class=${`badge ${props.session.mode === 'test' ? 'test' : 'good'}`} data-testid="mode">${props.session.mode}</span></span>
      ${
        props.session.switchable
          ? html`<form class="inline" method="post" action="/dashboard/mode">
            <${CsrfField} token=${props.session.csrfToken} />
            <input type="hidden" name="mode" value=${other} />
            <button class="link" type="submit">Switch to ${other}</button>
          </form>`
          : html`<span class="muted" data-testid="mode-hint">${otherModeHint(props.session.mode)}</span>`
      }
    </div>
    ${props.notice ? html`<p class="notice" role="status">${props.notice}</p>` : null}
    ${props.error ? html`<p class="alert" role="alert">${props.error}</p>` : null}
    ${props.children}
    <script src="/dashboard/assets/dashboard.js" defer></script>
  <//>`;
}

/** A page outside a session (sign-in, signed out): no navigation. */
export function PlainLayout(props: { title: string; children?: Children }): VNode {
  return html`<${Layout} title=${props.title} product="Print dashboard"><style>${EXTRA_CSS}</style>${props.children}<//>`;
}

/** A one-button form (sync, retry, cancel…), CSRF-protected; `confirm` asks first where script runs. */
export function PostButton(props: {
  action: string;
  csrf: string;
  label: string;
  fields?: Record<string, string>;
  confirm?: string;
  name?: string;
}): VNode {
  return html`<form class="inline" method="post" action=${props.action} data-confirm=${props.confirm}>
    <${CsrfField} token=${props.csrf} />
    ${Object.entries(props.fields ?? {}).map(([k, v]) => html`<input type="hidden" name=${k} value=${v} />`)}
    <button type="submit" aria-label=${props.name}>${props.label}</button>
  </form>`;
}

export function money(cents: number | null | undefined): string {
  if (cents === null || cents === undefined) return '—';
  const sign = cents < 0 ? '−' : '';
  return `${sign}€${(Math.abs(cents) / 100).toFixed(2)}`;
}

export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  return iso
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC')
    .replace(/Z$/, ' UTC');
}

/**
 * The error a refusal shows next to its form, in a merchant's words (words.ts): the whole message, and per field (by
 * the API's field name) what is wrong with it.
 */
export function refusal(err: unknown): { message: string; fields: Record<string, string> } {
  if (!(err instanceof Refusal)) throw err;
  const fields: Record<string, string> = {};
  for (const d of err.details ?? []) {
    // Shown next to its field, a detail does not repeat the field's name ("recipient.postalCode is required").
    if (d.field && d.field !== 'body' && !fields[d.field]) fields[d.field] = fieldMessage(d);
  }
  return { message: merchantMessage(err.code, err.message, err.details), fields };
}

/** The link to a list's next page: the same filters, the API's cursor. */
export function NextPage(props: {
  base: string;
  query: Record<string, string | undefined>;
  cursor: string | null;
}): VNode | null {
  if (!props.cursor) return null;
  const q = new URLSearchParams(
    Object.entries({ ...props.query, cursor: props.cursor }).filter((e): e is [string, string] => !!e[1]),
  );
  return html`<p><a href=${`${props.base}?${q}`} rel="next">Next page →</a></p>`;
}

/** A select with its label and error. */
export function Select(props: {
  name: string;
  label: string;
  options: Array<{ value: string; label: string }>;
  value?: string | undefined;
  error?: string | undefined;
  required?: boolean;
  idPrefix?: string;
}): VNode {
  const id = `${props.idPrefix ?? 'f'}-${props.name}`;
  return html`<div>
    <label for=${id}>${props.label}</label>
    <select id=${id} name=${props.name} required=${props.required ?? false} aria-invalid=${props.error ? 'true' : undefined} aria-describedby=${props.error ? `${id}-error` : undefined}>
      ${props.options.map((o) => html`<option value=${o.value} selected=${o.value === props.value}>${o.label}</option>`)}
    </select>
    ${props.error ? html`<p id=${`${id}-error`} class="error" role="alert">${props.error}</p>` : null}
  </div>`;
}

/**
 * A labelled input with its error next to it, whose id is unique on a page with several forms of
 * the same fields (`idPrefix`); a `hint` (what an optional field defaults to) is read with it.
 */
export function Input(props: {
  idPrefix: string;
  name: string;
  label: string;
  type?: string;
  value?: string;
  error?: string | undefined;
  required?: boolean;
  autocomplete?: string;
  hint?: string | undefined;
}): VNode {
  if (!props.hint) return Field(props);
  const id = `${props.idPrefix}-${props.name}`;
  const describedBy = [`${id}-hint`, ...(props.error ? [`${id}-error`] : [])].join(' ');
  return html`<div>
    <label for=${id}>${props.label}</label>
    <input id=${id} name=${props.name} type=${props.type ?? 'text'} value=${props.value ?? ''} required=${props.required ?? false} autocomplete=${props.autocomplete} aria-invalid=${props.error ? 'true' : undefined} aria-describedby=${describedBy} />
    <p id=${`${id}-hint`} class="muted">${props.hint}</p>
    ${props.error ? html`<p id=${`${id}-error`} class="error" role="alert">${props.error}</p>` : null}
  </div>`;
}
