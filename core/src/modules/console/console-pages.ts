import type { Request, Response } from 'express';
import { html, sendPage, type Children, type VNode } from '../../web/html.ts';
import { definePage, type PageSpec } from '../../web/page.ts';
import { isNotFound, type ConsoleLookup, type OrderPageData, type ResellerPageData } from './console-lookup.ts';
import {
  DELIVERY_STATUS_WORDS,
  EVENT_TYPE_WORDS,
  FILE_STATUS_WORDS,
  INGEST_STATUS_WORDS,
  inWords,
  LEDGER_KIND_WORDS,
  ORDER_STATE_WORDS,
  ORDER_STATUS_WORDS,
  PAYMENT_STATUS_WORDS,
  type PlatformName,
} from '../code-words.ts';

/** A console page's frame (the console's layout, with its search field and navigation). */
export type ConsolePage = (req: Request, title: string, body: Children) => VNode;

/** What a section of the reseller page gets: the page's facts and the operator session's CSRF token (for forms). */
export interface ResellerSectionContext {
  data: ResellerPageData;
  csrfToken: string;
  /** The request: who is signed in, and so which actions a section may offer. */
  req: Request;
  /** A platform's name, as its connector gives it. */
  platformName: PlatformName;
}

/**
 * A section of the reseller page: the page is these, in order. Another part of the console (the
 * operators' actions: approve, suspend, top up, a key or a login link) adds its own renderer to
 * the list given to `consolePages`.
 */
export type ResellerSection = (ctx: ResellerSectionContext) => VNode | null;

const euros = (cents: number) => `${cents < 0 ? '−' : ''}€${(Math.abs(cents) / 100).toFixed(2)}`;
const at = (d: Date | string | null | undefined) =>
  d
    ? html`<time datetime=${new Date(d).toISOString()}>${new Date(d).toISOString().replace('T', ' ').slice(0, 16)} UTC</time>`
    : '—';
const COUNTRIES = new Intl.DisplayNames(['en'], { type: 'region' });
/** A code beside its words, small: what support searches the logs and the API for. */
const Code = (props: { code: string }) => html`<code class="code">${props.code}</code>`;

/** An order's payment in words: "Paid from the wallet", "Paid by card", "Card declined". */
function paymentOf(p: OrderPageData['order']['payment']): string {
  if (p.status === 'paid' && p.method === 'wallet') return 'Paid from the wallet';
  if (p.status === 'paid' && p.method === 'card') return 'Paid by card';
  if (p.status === 'not_charged') return 'Not charged (a test order, or nothing to pay)';
  return inWords(PAYMENT_STATUS_WORDS, p.status);
}

export const statusSection: ResellerSection = ({ data: { reseller: r } }) =>
  html`<section aria-labelledby="status-h"><h2 id="status-h">Account</h2>
    <dl class="facts" data-testid="reseller-facts">
      <dt>Status</dt><dd data-testid="reseller-status" data-status>${r.status}</dd>
      <dt>E-mail</dt><dd>${r.email}</dd><dt>Phone</dt><dd>${r.phone}</dd>
      <dt>Discount</dt><dd>${r.discountPercent} %</dd><dt>Id</dt><dd><code>${r.id}</code></dd><dt>Since</dt><dd>${at(r.createdAt)}</dd>
    </dl></section>`;

export const walletSection: ResellerSection = ({ data }) =>
  html`<section aria-labelledby="wallet-h"><h2 id="wallet-h">Wallets</h2>
    ${data.wallets.map(
      (
        w,
      ) => html`<h3>${w.mode === 'live' ? 'Live' : 'Test (sandbox)'}: <span data-testid=${`balance-${w.mode}`}>${euros(w.balanceCents)}</span></h3>
      ${
        w.entries.length === 0
          ? html`<p class="muted">No ledger entries.</p>`
          : html`<div class="table"><table><thead><tr><th>When</th><th>Kind</th><th>Amount</th><th>Order / reference</th></tr></thead>
          <tbody>${w.entries.map((e) => html`<tr><td>${at(e.createdAt)}</td><td data-code=${e.kind}>${inWords(LEDGER_KIND_WORDS, e.kind)}</td><td>${euros(e.amountCents)}</td><td>${e.orderId ? html`<a href=${`/admin/orders/${e.orderId}`}>${e.orderId}</a>` : (e.reference ?? '')}</td></tr>`)}</tbody></table></div>`
      }`,
    )}</section>`;

export const keysSection: ResellerSection = ({ data }) =>
  html`<section aria-labelledby="keys-h"><h2 id="keys-h">API keys</h2>
    ${
      data.keys.length === 0
        ? html`<p class="muted">No API key.</p>`
        : html`<div class="table"><table><thead><tr><th>Key</th><th>Mode</th><th>Scopes</th><th>Last used</th><th>State</th></tr></thead>
      <tbody>${data.keys.map((k) => html`<tr data-key=${k.id}><td><code>${k.prefix}…</code></td><td>${k.mode}</td><td>${k.scopes === null ? 'every scope' : k.scopes.join(', ') || 'none'}</td><td>${k.lastUsedAt ? at(k.lastUsedAt) : 'never'}</td><td>${k.revokedAt ? html`revoked ${at(k.revokedAt)}` : 'active'}</td></tr>`)}</tbody></table></div>`
    }</section>`;

export const storesSection: ResellerSection = ({ data, platformName }) =>
  html`<section aria-labelledby="stores-h"><h2 id="stores-h">Stores</h2>
    ${
      data.stores.length === 0
        ? html`<p class="muted">No store.</p>`
        : html`<ul>${data.stores.map((s) => html`<li><a href=${`/admin/stores?reseller=${encodeURIComponent(data.reseller.id)}&platform=${encodeURIComponent(s.platform)}`}>${s.name}</a> · ${platformName(s.platform)} · ${s.mode} · ${s.status}${s.lastError ? html` · <span class="error">${s.lastError}</span>` : null}</li>`)}</ul>`
    }</section>`;

export const ordersSection: ResellerSection = ({ data }) =>
  html`<section aria-labelledby="orders-h"><h2 id="orders-h">Recent orders</h2>${OrderRows({ orders: data.orders })}</section>`;

/** The reseller page as it is built: each section in turn (the operators' actions are another's to add). */
export const RESELLER_SECTIONS: ResellerSection[] = [
  statusSection,
  walletSection,
  keysSection,
  storesSection,
  ordersSection,
];

function OrderRows(props: { orders: ResellerPageData['orders'] }): VNode {
  if (props.orders.length === 0) return html`<p class="muted">No order.</p>`;
  return html`<div class="table"><table><thead><tr><th>Order</th><th>External id</th><th>Reseller</th><th>Mode</th><th>State</th><th>Created</th></tr></thead>
    <tbody>${props.orders.map((o) => html`<tr data-order=${o.id}><td><a href=${`/admin/orders/${o.id}`}>${o.id}</a></td><td>${o.externalOrderId ?? '—'}</td><td><a href=${`/admin/resellers/${o.resellerId}`}>${o.resellerName}</a></td><td>${o.mode}</td><td data-code=${o.state}>${inWords(ORDER_STATE_WORDS, o.state)}</td><td>${at(o.createdAt)}</td></tr>`)}</tbody></table></div>`;
}

/** The recipient as the carrier prints it on the label. */
function Label(props: { r: OrderPageData['order']['recipient'] }): VNode {
  const r = props.r;
  let country = r.country;
  try {
    country = COUNTRIES.of(r.country) ?? r.country;
  } catch {
    // Not a region code: as it is.
  }
  const lines = [
    r.name,
    r.company,
    r.address1,
    r.address2,
    `${r.postalCode} ${r.city}${r.state ? ` ${r.state}` : ''}`,
    country.toUpperCase(),
  ];
  return html`<address data-testid="recipient">${lines.filter(Boolean).map((l, i) => html`${i ? html`<br />` : null}${l}`)}</address>`;
}

function orderBody(d: OrderPageData, platformName: PlatformName): VNode {
  const o = d.order;
  const p = o.payment;
  return html`<dl class="facts">
      <dt>Reseller</dt><dd><a href=${`/admin/resellers/${o.resellerId}`}>${d.resellerName}</a> · ${o.mode}</dd>
      <dt>State</dt><dd data-testid="order-state">${inWords(ORDER_STATE_WORDS, o.state)} · ${inWords(ORDER_STATUS_WORDS, o.status)} <${Code} code=${`${o.state} · ${o.status}`} /></dd>
      <dt>External id</dt><dd>${o.externalOrderId ?? '—'}</dd>
      <dt>Payment</dt><dd data-testid="order-payment">${paymentOf(p)}${p.paidAt ? html`, ${at(p.paidAt)}` : null}${p.error ? html` · <span class="error">${p.error}</span>` : null} · total ${euros(o.totals.totalCents)}</dd>
      <dt>Recipient</dt><dd><${Label} r=${o.recipient} /></dd>
      <dt>Tracking</dt><dd>${o.tracking ? html`${o.tracking.carrier} <a href=${o.tracking.trackingUrl} rel="noreferrer">${o.tracking.trackingNumber}</a>` : '—'}</dd>
      <dt>From store order</dt><dd data-testid="store-order">${d.storeOrder ? html`${d.storeOrder.externalName ?? d.storeOrder.externalOrderId} of <a href=${`/admin/stores?reseller=${encodeURIComponent(o.resellerId)}&platform=${encodeURIComponent(d.storeOrder.platform)}`}>${d.storeOrder.storeName}</a> (${platformName(d.storeOrder.platform)}), ${inWords(INGEST_STATUS_WORDS, d.storeOrder.status).toLowerCase()}, received ${at(d.storeOrder.createdAt)}` : `none (from ${platformName(o.source)})`}</dd>
    </dl>
    <section aria-labelledby="lines-h"><h2 id="lines-h">Lines</h2><div class="table"><table>
      <thead><tr><th>Line</th><th>Product</th><th>Quantity</th><th>Options</th><th>File</th></tr></thead>
      <tbody>${o.lines.map(
        (l) =>
          html`<tr><td>${l.line + 1}</td><td>${l.resellerSku ? `${l.resellerSku} (${l.productId})` : l.productId}</td><td>${l.quantity}</td><td>${Object.entries(
            { ...l.options, ...l.derivedOptions },
          )
            .map(([k, v]) => `${k}=${String(v)}`)
            .join(', ')}</td><td>${inWords(FILE_STATUS_WORDS, l.fileStatus)}</td></tr>`,
      )}</tbody>
    </table></div></section>
    <section aria-labelledby="timeline-h"><h2 id="timeline-h">Production timeline and webhook deliveries</h2>
      <p class="muted">Created ${at(o.createdAt)}${o.cancelledAt ? html`, cancelled ${at(o.cancelledAt)}` : null}.</p>
      ${
        d.events.length === 0
          ? html`<p class="muted">No events yet.</p>`
          : html`<ol data-testid="timeline">${d.events.map((e) => html`<li>${at(e.createdAt)} <strong>${inWords(EVENT_TYPE_WORDS, e.type)}</strong> <${Code} code=${e.type} />${e.deliveries.length ? html`<ul>${e.deliveries.map((w) => html`<li data-delivery>${w.endpointUrl}: ${inWords(DELIVERY_STATUS_WORDS, w.status).toLowerCase()}, ${w.attempts} attempt${w.attempts === 1 ? '' : 's'}${w.lastStatusCode ? `, last answer ${w.lastStatusCode}` : ''}</li>`)}</ul>` : html` <span class="muted">(no webhook endpoint)</span>`}</li>`)}</ol>`
      }
    </section>`;
}

/**
 * The console's lookup pages: `/admin/search?q=` (what the search field on every page sends),
 * `/admin/resellers/{id}` and `/admin/orders/{id}`. Each answers a signed-out browser with the
 * sign-in page's way back, an unknown id with a 404 page.
 */
export function consolePages(
  lookup: ConsoleLookup,
  page: ConsolePage,
  platformName: PlatformName,
  sections: ResellerSection[] = RESELLER_SECTIONS,
): PageSpec[] {
  const signedIn = (req: Request, res: Response): boolean => {
    if (req.browserSession) return true;
    res.redirect(303, `/admin?next=${encodeURIComponent(req.originalUrl)}`);
    return false;
  };
  const notFound = (req: Request, res: Response, what: string) =>
    sendPage(res, page(req, 'Not found', html`<p role="alert">No ${what} with this id. Search for it above.</p>`), 404);
  return [
    definePage({
      method: 'get',
      path: '/search',
      auth: 'operator',
      csrf: 'none',
      handle: async (req, res, next) => {
        try {
          if (!signedIn(req, res)) return;
          const q = typeof req.query.q === 'string' ? req.query.q.slice(0, 200) : '';
          const hits = await lookup.search(q);
          const one = hits.resellers.length + hits.orders.length === 1;
          if (one && hits.resellers[0]) return void res.redirect(303, `/admin/resellers/${hits.resellers[0].id}`);
          if (one && hits.orders[0]) return void res.redirect(303, `/admin/orders/${hits.orders[0].id}`);
          sendPage(
            res,
            page(
              req,
              q ? `Search: ${q}` : 'Search',
              html`<section aria-labelledby="found-resellers-h"><h2 id="found-resellers-h">Resellers</h2>${
                hits.resellers.length === 0
                  ? html`<p class="muted">None found.</p>`
                  : html`<ul>${hits.resellers.map((r) => html`<li><a href=${`/admin/resellers/${r.id}`}>${r.name}</a> · ${r.email} · ${r.status}</li>`)}</ul>`
              }</section>
              <section aria-labelledby="found-orders-h"><h2 id="found-orders-h">Orders</h2>${OrderRows({ orders: hits.orders })}</section>
              <p class="muted">Searches reseller ids, names and e-mails, and order ids and external order ids (an e-mail also finds its reseller's latest orders).</p>`,
            ),
          );
        } catch (err) {
          next(err);
        }
      },
    }),
    definePage({
      method: 'get',
      path: '/resellers/{id}',
      auth: 'operator',
      csrf: 'none',
      handle: async (req, res, next) => {
        try {
          if (!signedIn(req, res)) return;
          const data = await lookup.reseller(String(req.params.id));
          const ctx = { data, csrfToken: req.browserSession!.csrfToken, req, platformName };
          sendPage(res, page(req, data.reseller.name, html`${sections.map((s) => s(ctx))}`));
        } catch (err) {
          if (isNotFound(err)) return notFound(req, res, 'reseller');
          next(err);
        }
      },
    }),
    definePage({
      method: 'get',
      path: '/orders/{id}',
      auth: 'operator',
      csrf: 'none',
      handle: async (req, res, next) => {
        try {
          if (!signedIn(req, res)) return;
          const data = await lookup.order(String(req.params.id));
          sendPage(
            res,
            page(req, `Order ${data.order.externalOrderId ?? data.order.id}`, orderBody(data, platformName)),
          );
        } catch (err) {
          if (isNotFound(err)) return notFound(req, res, 'order');
          next(err);
        }
      },
    }),
  ];
}

/** The search field every console page carries (`<input type="search" name="q">`). */
export function SearchField(props: { q?: string | undefined }): VNode {
  return html`<form method="get" action="/admin/search" role="search" aria-label="Search resellers and orders" class="console-search">
    <label for="console-q">Find a reseller or order</label>
    <input id="console-q" type="search" name="q" value=${props.q ?? ''} placeholder="id, e-mail or external order id" />
    <button type="submit">Search</button>
  </form>`;
}
