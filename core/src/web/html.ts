import { createRequire } from 'node:module';
import type { Response } from 'express';

/** The form field a page's forms carry the session's CSRF token in (checked by the sessions module's csrfCheck). */
export const CSRF_FIELD = '_csrf';

// Loaded without their type declarations: preact's bring the DOM library into the whole
// program (`/// <reference lib="dom">`), which changes Node's own types (fetch bodies) for
// every file. The few types the pages need are declared here. One instance of preact for
// every page and for the renderer (the CommonJS builds, through one require).
const load = createRequire(import.meta.url);
const htm = load('htm') as {
  bind<R>(
    h: (type: any, props: Record<string, any> | null, ...children: any[]) => R,
  ): (strings: TemplateStringsArray, ...values: unknown[]) => R;
};
const preact = load('preact') as {
  h: (type: any, props: Record<string, any> | null, ...children: any[]) => VNode;
  Fragment: unknown;
};
const { renderToString } = load('preact-render-to-string') as { renderToString: (vnode: VNode) => string };

/** A rendered element (preact's VNode, opaque here). */
export interface VNode {
  type: unknown;
  props: Record<string, unknown>;
}

/**
 * What a component may contain: elements, text, numbers, lists of them; null, undefined and booleans render nothing.
 */
export type Children = VNode | string | number | bigint | boolean | null | undefined | Children[];

export const h = preact.h;
export const Fragment = preact.Fragment;

/**
 * The server-rendered pages (operators' console, resellers' dashboard): preact components
 * written as `htm` tagged templates (no JSX, no build step: Node runs this file as it is) and
 * rendered to a string. Every interpolated value is text or an attribute value, escaped by the
 * renderer: markup comes only from the templates themselves.
 *
 * @example
 * sendPage(res, html`<${Layout} title="Stores"><p>${store.name}</p><//>`);
 */
export const html = htm.bind(preact.h);

/**
 * What a page adds to the app's security headers (CSP, framing, nosniff, HSTS: set once for
 * every response by `securityHeaders`): it is never cached, it carries a session's data.
 */
export const PAGE_HEADERS: Record<string, string> = {
  'Cache-Control': 'no-store',
};

/** Renders a page (a `<html>` root, usually from `Layout`) to a complete HTML document. */
export function renderPage(page: VNode): string {
  return `<!doctype html>${renderToString(page)}`;
}

/** Sends a rendered page with the page headers. */
export function sendPage(res: Response, page: VNode, status = 200): void {
  res.status(status).set(PAGE_HEADERS).type('html').send(renderPage(page));
}

const CSS = `
:root{color-scheme:light dark;--fg:#1b1f24;--bg:#fff;--muted:#5b6470;--line:#d8dde3;--accent:#0b5cad;--bad:#b42318;--warn:#9a6700;--ok:#1a7f37}
@media (prefers-color-scheme:dark){:root{--fg:#e6e9ed;--bg:#14171a;--muted:#9aa4ae;--line:#2e343a;--accent:#6cb0ff;--bad:#ff7b72;--warn:#e3b341;--ok:#56d364}}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,sans-serif;color:var(--fg);background:var(--bg)}
header{display:flex;flex-wrap:wrap;gap:1rem;align-items:center;padding:.6rem 1rem;border-bottom:1px solid var(--line)}
header strong{margin-right:auto}nav a{margin-right:1rem}a{color:var(--accent)}
main{padding:1rem;max-width:80rem;margin:0 auto}
table{border-collapse:collapse;width:100%;font-size:14px}th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
.table{overflow-x:auto}
label{display:block;font-weight:600;margin:.8rem 0 .2rem}input,select,button{font:inherit;padding:.4rem .6rem;border:1px solid var(--line);border-radius:4px;background:var(--bg);color:var(--fg)}
button{cursor:pointer;background:var(--accent);color:#fff;border-color:var(--accent)}button.link{background:none;color:var(--accent);border:none;padding:0}
.error{color:var(--bad)}.warn{color:var(--warn)}.ok{color:var(--ok)}.muted{color:var(--muted)}
.flag{display:inline-block;padding:0 .4rem;border-radius:3px;background:var(--bad);color:#fff;font-size:12px;margin-right:.25rem}
form.inline{display:inline}
`;

/** A page: the document, a header with the product name, navigation and a sign-out form when signed in. */
export function Layout(props: {
  title: string;
  product?: string;
  nav?: Array<{ href: string; label: string }>;
  /** The sign-out form's action and the session's CSRF token, when signed in. */
  signOut?: { action: string; csrfToken: string };
  children?: Children;
}): VNode {
  return html`<html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>${props.title} · ${props.product ?? 'Print API'}</title>
      <link rel="icon" href="/favicon.ico" />
      <style>${CSS}</style>
    </head>
    <body>
      <header>
        <strong>${props.product ?? 'Print API'}</strong>
        ${props.nav ? html`<nav aria-label="Main">${props.nav.map((n) => html`<a href=${n.href}>${n.label}</a>`)}</nav>` : null}
        ${
          props.signOut
            ? html`<form class="inline" method="post" action=${props.signOut.action}><${CsrfField} token=${props.signOut.csrfToken} /><button class="link" type="submit">Sign out</button></form>`
            : null
        }
      </header>
      <main>
        <h1>${props.title}</h1>
        ${props.children}
      </main>
    </body>
  </html>`;
}

/** The hidden field that carries the session's CSRF token in every state-changing form. */
export function CsrfField(props: { token: string }): VNode {
  return html`<input type="hidden" name=${CSRF_FIELD} value=${props.token} />`;
}

/**
 * A labelled input with its error next to it (accessible: the error is the input's description).
 * `idPrefix` keeps ids unique on a page with several forms of the same fields (default `f`).
 */
export function Field(props: {
  name: string;
  label: string;
  type?: string;
  value?: string;
  error?: string | undefined;
  required?: boolean;
  autocomplete?: string;
  idPrefix?: string;
}): VNode {
  const id = `${props.idPrefix ?? 'f'}-${props.name}`;
  return html`<div>
    <label for=${id}>${props.label}</label>
    <input
      id=${id}
      name=${props.name}
      type=${props.type ?? 'text'}
      value=${props.value ?? ''}
      required=${props.required ?? false}
      autocomplete=${props.autocomplete}
      aria-invalid=${props.error ? 'true' : undefined}
      aria-describedby=${props.error ? `${id}-error` : undefined}
    />
    ${props.error ? html`<p id=${`${id}-error`} class="error" role="alert">${props.error}</p>` : null}
  </div>`;
}
