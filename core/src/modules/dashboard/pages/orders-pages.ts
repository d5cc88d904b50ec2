import { CsrfField, html, sendPage } from '../../../web/html.ts';
import { ORDER_STATES } from '../../orders/order-states.ts';
import { noticeOf, redirect, type DashContext } from '../dashboard-context.ts';
import type { Register } from '../dashboard-router.ts';
import type { DashboardViews } from '../dashboard-views.ts';
import { DashLayout, money, NextPage, PostButton, refusal, Select, when } from './parts.ts';
import type { Api, Data, ListPage } from '../dashboard-data.ts';
import { AddressLabel, optionNamesOf, optionsWords, paymentWords } from './order-words.ts';
import {
  EVENT_TYPE_WORDS,
  FILE_STATUS_WORDS,
  inWords,
  ORDER_STATE_WORDS,
  ORDER_STATUS_WORDS,
  type PlatformName,
} from '../../code-words.ts';

const FILTERS = ['state', 'source', 'storeId', 'externalOrderId'] as const;

/** Orders: the list with its filters and pages, and an order's detail with what can be done to it. */
export function ordersPages(
  register: Register,
  deps: { views: DashboardViews; sources: string[]; platformName: PlatformName },
): void {
  register('get', '/orders', async (d) => {
    const filters = Object.fromEntries(
      FILTERS.map((f) => [
        f,
        typeof d.req.query[f] === 'string' && d.req.query[f] ? (d.req.query[f] as string) : undefined,
      ]),
    ) as Record<(typeof FILTERS)[number], string | undefined>;
    const cursor = typeof d.req.query.cursor === 'string' ? d.req.query.cursor : undefined;
    // The store filter only for a session that may read stores.
    const stores = d.page.can('stores:read')
      ? (await d.api<ListPage<Api['Store']>>('GET', '/stores', { query: { limit: '100' } })).data
      : [];
    let page: ListPage<Api['Order']> = { data: [], nextCursor: null };
    let error: string | undefined;
    try {
      page = await d.api<ListPage<Api['Order']>>('GET', '/orders', { query: { ...filters, cursor, limit: '25' } });
    } catch (err) {
      error = refusal(err).message;
    }
    sendPage(
      d.res,
      html`<${DashLayout} title="Orders" session=${d.page} notice=${noticeOf(d.req)} error=${error}>
        <form class="filters" method="get" action="/dashboard/orders" role="search" aria-label="Filter orders">
          <${Select} name="state" label="State" value=${filters.state} options=${[{ value: '', label: 'Any' }, ...ORDER_STATES.map((s) => ({ value: s, label: ORDER_STATE_WORDS[s] }))]} />
          <${Select} name="source" label="Source" value=${filters.source} options=${[{ value: '', label: 'Any' }, ...deps.sources.map((s) => ({ value: s, label: deps.platformName(s) }))]} />
          <${Select} name="storeId" label="Store" value=${filters.storeId} options=${[{ value: '', label: 'Any' }, ...stores.map((s) => ({ value: s.id, label: `${s.name} (${deps.platformName(s.platform)})` }))]} />
          <div><label for="f-ext">External order id</label><input id="f-ext" name="externalOrderId" value=${filters.externalOrderId ?? ''} /></div>
          <button type="submit">Filter</button>
        </form>
        ${
          page.data.length === 0
            ? html`<p class="muted">No orders${Object.values(filters).some(Boolean) ? ' match these filters' : ' yet'}.</p>`
            : html`<div class="table"><table>
              <thead><tr><th scope="col">Order</th><th scope="col">External id</th><th scope="col">Source</th><th scope="col">State</th><th scope="col">Status</th><th scope="col">Total</th><th scope="col">Created</th></tr></thead>
              <tbody>${page.data.map(
                (o) =>
                  html`<tr><td><a href=${`/dashboard/orders/${o.id}`}>${o.id}</a></td><td>${o.externalOrderId ?? '—'}</td><td>${deps.platformName(o.source)}</td><td data-code=${o.state}>${inWords(ORDER_STATE_WORDS, o.state)}</td><td data-testid="order-status" data-code=${o.status}>${inWords(ORDER_STATUS_WORDS, o.status)}</td><td>${money(o.totals.totalCents)}</td><td>${when(o.createdAt)}</td></tr>`,
              )}</tbody>
            </table></div>`
        }
        <${NextPage} base="/dashboard/orders" query=${filters} cursor=${page.nextCursor} />
      <//>`,
      error ? 400 : 200,
    );
  });

  register('get', '/orders/{id}', (d) => orderPage(d));

  register('post', '/orders/{id}/cancel', async (d) => {
    const id = encodeURIComponent(String(d.req.params.id));
    try {
      await d.api('POST', `/orders/${id}/cancel`);
      redirect(d.res, `/dashboard/orders/${id}?done=order-cancelled`);
    } catch (err) {
      await orderPage(d, { message: refusal(err).message });
    }
  });

  register('post', '/orders/{id}/lines/{line}/file', async (d) => {
    const id = encodeURIComponent(String(d.req.params.id));
    const line = String(d.req.params.line);
    try {
      await d.api('PUT', `/orders/${id}/lines/${encodeURIComponent(line)}/file`, {
        body: { fileUrl: d.form.fileUrl ?? '' },
      });
      redirect(d.res, `/dashboard/orders/${id}?done=file-supplied`);
    } catch (err) {
      const r = refusal(err);
      await orderPage(d, { message: r.message, line: Number(line), field: r.fields.fileUrl ?? r.message });
    }
  });

  async function orderPage(
    d: DashContext,
    problem?: { message: string; line?: number; field?: string },
  ): Promise<void> {
    const o = (await d.api<Data<Api['Order']>>('GET', `/orders/${encodeURIComponent(String(d.req.params.id))}`)).data;
    const events = await deps.views.orderEvents(d.caller, o.id);
    const optionNames = await optionNamesOf(
      d,
      o.lines.map((l) => l.productId),
    );
    const cancellable = o.state !== 'CANCELLED' && (o.status === 'PENDING' || o.status === 'PAID');
    sendPage(
      d.res,
      html`<${DashLayout} title=${`Order ${o.externalOrderId ?? o.id}`} session=${d.page} notice=${noticeOf(d.req)} error=${problem && problem.line === undefined ? problem.message : undefined}>
        <p><a href="/dashboard/orders">← Orders</a></p>
        <dl class="facts">
          <dt>Order</dt><dd>${o.id}</dd>
          <dt>State</dt><dd data-testid="order-state" data-code=${o.state}>${inWords(ORDER_STATE_WORDS, o.state)}</dd>
          <dt>Status</dt><dd data-testid="order-status" data-code=${o.status}>${inWords(ORDER_STATUS_WORDS, o.status)}</dd>
          <dt>Source</dt><dd>${deps.platformName(o.source)}${o.storeId ? html` · <a href=${`/dashboard/stores/${o.storeId}`}>store</a>` : null}</dd>
          <dt>Payment</dt><dd data-testid="payment">${paymentWords(o.payment, d.page.mode)}${o.payment.error ? html` <span class="error">${o.payment.error}</span>` : null}</dd>
          <dt>Ship to</dt><dd><${AddressLabel} r=${o.recipient} testId="ship-to" /></dd>
          <dt>Tracking</dt><dd data-testid="tracking">${o.tracking ? html`${o.tracking.carrier} <a href=${o.tracking.trackingUrl}>${o.tracking.trackingNumber}</a>` : '—'}</dd>
        </dl>
        ${cancellable && d.page.can('orders:write') ? html`<p><${PostButton} action=${`/dashboard/orders/${o.id}/cancel`} csrf=${d.page.csrfToken} label="Cancel order" confirm="Cancel this order?" /></p>` : null}
        <section aria-labelledby="lines-h">
          <h2 id="lines-h">Lines and files</h2>
          <div class="table"><table>
            <thead><tr><th scope="col">Line</th><th scope="col">Product</th><th scope="col">Qty</th><th scope="col">Options</th><th scope="col">File</th><th scope="col">Net</th></tr></thead>
            <tbody>${o.lines.map(
              (l) => html`<tr>
                <td>${l.line + 1}</td><td>${l.resellerSku ?? l.productId}</td><td>${l.quantity}</td>
                <td data-testid="line-options">${optionsWords({ ...l.options, ...l.derivedOptions }, optionNames)}</td>
                <td>
                  <span class=${`badge ${l.fileStatus === 'ok' ? 'good' : 'bad'}`}>${inWords(FILE_STATUS_WORDS, l.fileStatus)}</span>
                  ${l.fileUrl ? html` <a href=${l.fileUrl}>file</a>` : null}
                  ${
                    o.state === 'AWAITING_FILE' && l.fileStatus === 'missing' && d.page.can('orders:write')
                      ? html`<form method="post" action=${`/dashboard/orders/${o.id}/lines/${l.line}/file`} aria-label=${`Supply the file of line ${l.line + 1}`}>
                        <${CsrfField} token=${d.page.csrfToken} />
                        <label for=${`file-${l.line}`}>File URL for line ${l.line + 1} (https PDF, PNG or JPG)</label>
                        <input id=${`file-${l.line}`} name="fileUrl" type="url" required aria-invalid=${problem?.line === l.line ? 'true' : undefined} aria-describedby=${problem?.line === l.line ? `file-${l.line}-error` : undefined} />
                        ${problem?.line === l.line ? html`<p id=${`file-${l.line}-error`} class="error" role="alert">${problem?.field}</p>` : null}
                        <button type="submit">Supply file</button>
                      </form>`
                      : null
                  }
                </td>
                <td>${money(l.netCents)}</td>
              </tr>`,
            )}</tbody>
          </table></div>
        </section>
        <section aria-labelledby="price-h">
          <h2 id="price-h">Price</h2>
          <dl class="facts">
            <dt>Public price</dt><dd>${money(o.totals.publicNetCents)}</dd>
            <dt>Your discount</dt><dd>${money(-o.totals.discountCents)}</dd>
            <dt>Net</dt><dd>${money(o.totals.netCents)}</dd>
            <dt>Shipping</dt><dd>${money(o.totals.shippingCents)}</dd>
            <dt>VAT</dt><dd>${money(o.totals.vatCents)}</dd>
            <dt>Total</dt><dd><strong>${money(o.totals.totalCents)}</strong></dd>
          </dl>
        </section>
        <section aria-labelledby="events-h">
          <h2 id="events-h">Events</h2>
          ${
            events.length === 0
              ? html`<p class="muted">No events yet.</p>`
              : html`<ol data-testid="events">${events.map((e) => html`<li><time datetime=${e.createdAt}>${when(e.createdAt)}</time> <strong data-code=${e.type}>${inWords(EVENT_TYPE_WORDS, e.type)}</strong>${e.detail ? ` · ${e.detail}` : ''}</li>`)}</ol>`
          }
        </section>
      <//>`,
      problem ? 422 : 200,
    );
  }
}
