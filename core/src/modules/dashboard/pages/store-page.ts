import { CsrfField, html, sendPage, type VNode } from '../../../web/html.ts';
import type { PlatformName } from '../../code-words.ts';
import { noticeOf, type DashContext } from '../dashboard-context.ts';
import type { Api, Data, ListPage } from '../dashboard-data.ts';
import { DashLayout, PostButton, Select, when } from './parts.ts';
import { sandboxSection, type SandboxOrderErrors } from './sandbox-pages.ts';
import { ingestOutcome, retriedNotice, skippedLine, storeAddress } from './store-words.ts';
import type { PlatformForms } from './stores-pages.ts';

/** A listing's key in a page (ids and form errors): its product and variant. */
export const listingKey = (productId: string, variantId: string | null) =>
  `${productId}-${variantId ?? 'p'}`.replace(/[^A-Za-z0-9_-]/g, '_');

/**
 * A store's page, for the connectors' forms `byPlatform`: its state and actions, its sandbox section (a test-only
 * platform's), the retry of a mapped listing's skipped orders, its unmatched listings (create the product, or map the
 * listing), its matched listings and the store orders received. The errors given are a refused form's, shown by it.
 */
export function storePageOf(byPlatform: ReadonlyMap<string, PlatformForms>, platformName: PlatformName) {
  return async function storePage(
    d: DashContext,
    error?: string,
    productError?: { sku: string; message: string; fields: Record<string, string> },
    sandboxError?: SandboxOrderErrors,
    mapError?: { key: string; message: string },
  ): Promise<void> {
    const id = encodeURIComponent(String(d.req.params.id));
    const store = (await d.api<Data<Api['Store']>>('GET', `/stores/${id}`)).data;
    const unmatchedCursor = typeof d.req.query.unmatched === 'string' ? d.req.query.unmatched : undefined;
    // The listing just mapped (`?mapped=`): its skipped orders are offered a retry. Not an id the API could take: none.
    const mapped =
      typeof d.req.query.mapped === 'string' && d.req.query.mapped.length > 0 && d.req.query.mapped.length <= 100
        ? d.req.query.mapped
        : undefined;
    const canMap = d.page.can('stores:write') && d.page.can('reseller-products:read');
    const [unmatched, matched, ingests, catalogue, own, skipped] = await Promise.all([
      d.api<ListPage<Api['StoreListing']>>('GET', `/stores/${id}/listings`, {
        query: { matched: 'false', limit: '50', cursor: unmatchedCursor },
      }),
      d.api<ListPage<Api['StoreListing']>>('GET', `/stores/${id}/listings`, {
        query: { matched: 'true', limit: '50' },
      }),
      d.api<ListPage<Api['StoreIngest']>>('GET', `/stores/${id}/ingests`, { query: { limit: '25' } }),
      d.page.can('catalog:read')
        ? d.api<Pick<ListPage<Api['Product']>, 'data'>>('GET', '/products', { query: { limit: '100', lang: 'en' } })
        : Promise.resolve({ data: [] }),
      canMap
        ? d.api<Pick<ListPage<Api['ResellerProduct']>, 'data'>>('GET', '/reseller-products', {
            query: { active: 'true', limit: '100' },
          })
        : Promise.resolve({ data: [] }),
      mapped && d.page.can('stores:write')
        ? d.api<ListPage<Api['StoreIngest']>>('GET', `/stores/${id}/ingests`, {
            query: { status: 'skipped', externalProductId: mapped, limit: '100' },
          })
        : Promise.resolve(undefined),
    ]);
    const products = [
      { value: '', label: 'Choose a print product…' },
      ...catalogue.data.map((p) => ({ value: p.id, label: p.name ?? p.id })),
    ];
    const resellerProducts = [
      { value: '', label: 'Choose one of your products…' },
      ...own.data.map((p) => ({ value: p.id, label: `${p.sku} (${p.title})` })),
    ];
    const connected = store.status === 'connected';
    const sandbox = byPlatform.get(store.platform)?.testModeOnly
      ? await sandboxSection(d, id, connected && d.page.can('stores:write'), sandboxError)
      : null;
    const retryCount = skipped ? `${skipped.data.length}${skipped.nextCursor ? '+' : ''}` : '0';
    sendPage(
      d.res,
      html`<${DashLayout} title=${store.name} session=${d.page} notice=${retriedNotice(d.req, ingests.data) ?? noticeOf(d.req)} error=${error}>
        <dl class="facts">
          <dt>Platform</dt><dd>${platformName(store.platform)}</dd>
          <dt>State</dt><dd><span class=${`badge ${connected ? 'good' : ''}`} data-testid="store-state">${store.status}</span>${store.testMode ? html` <span class="badge test">test</span>` : null}</dd>
          ${storeAddress(store, platformName(store.platform))}
          <dt>Last order received</dt><dd>${when(ingests.data[0]?.createdAt)}</dd>
          <dt>Last poll</dt><dd>${when(store.lastPolledAt)}</dd>
          <dt>Last error</dt><dd>${store.lastError ? html`<span class="error">${store.lastError}</span>` : '—'}</dd>
          ${(store.notices as string[]).length > 0 ? html`<dt>Notices</dt><dd><ul data-testid="store-notices">${(store.notices as string[]).map((n) => html`<li>${n}</li>`)}</ul></dd>` : null}
        </dl>
        ${
          connected && d.page.can('stores:write')
            ? html`<p>
              <${PostButton} action=${`/dashboard/stores/${id}/sync`} csrf=${d.page.csrfToken} label="Sync now" />
              ${' '}<${PostButton} action=${`/dashboard/stores/${id}/disconnect`} csrf=${d.page.csrfToken} label="Disconnect" confirm="Disconnect this store? No more orders are taken from it." />
            </p>`
            : null
        }
        ${sandbox}
        ${
          skipped && skipped.data.length > 0 && connected
            ? html`<section class="card" aria-labelledby="retry-h" data-testid="retry-skipped">
              <h2 id="retry-h">Skipped orders of the listing</h2>
              <p>${retryCount} store order${skipped.data.length === 1 ? ' was' : 's were'} skipped before the listing was mapped: retry ${skipped.data.length === 1 ? 'it' : 'them'} now to print ${skipped.data.length === 1 ? 'it' : 'them'} as the product.</p>
              <${PostButton} action=${`/dashboard/stores/${id}/ingests/retry-skipped`} csrf=${d.page.csrfToken} fields=${{ externalProductId: mapped! }} label=${`Retry ${retryCount} skipped order${skipped.data.length === 1 ? '' : 's'}`} />
            </section>`
            : null
        }
        <section aria-labelledby="unmatched-h">
          <h2 id="unmatched-h">Unmatched listings</h2>
          <p class="muted">Their SKU is none of your products: orders for them are skipped until you create the product, or map the listing to one of your products as it is.</p>
          ${
            unmatched.data.length === 0
              ? html`<p class="muted">Every listing matches one of your products.</p>`
              : html`<div class="table"><table>
                <thead><tr><th scope="col">Listing</th><th scope="col">SKU</th><th scope="col">Create the product</th>${canMap ? html`<th scope="col">Map to product</th>` : null}</tr></thead>
                <tbody>${unmatched.data.map((l) => {
                  const e = productError && productError.sku === l.sku ? productError : undefined;
                  const key = listingKey(l.externalProductId, l.externalVariantId);
                  return html`<tr data-listing=${l.sku ?? ''}>
                    <td>${l.title}${l.active ? null : html` <span class="badge">inactive</span>`}</td>
                    <td>${l.sku ?? html`<span class="muted">no SKU: give it one in your store</span>`}</td>
                    <td>${
                      l.sku && d.page.can('reseller-products:write')
                        ? html`<form method="post" action=${`/dashboard/stores/${id}/listings/product`} aria-label=${`Create the product for ${l.sku}`}>
                          <${CsrfField} token=${d.page.csrfToken} />
                          <input type="hidden" name="sku" value=${l.sku} />
                          <input type="hidden" name="title" value=${l.title} />
                          <${Select} idPrefix=${`listing-${key}`} name="productId" label=${`Print product for ${l.sku}`} options=${products} error=${e?.fields.productId} required=${true} />
                          <label for=${`file-${key}`}>Artwork URL (optional)</label>
                          <input id=${`file-${key}`} name="fileUrl" type="url" placeholder="https://…" aria-invalid=${e?.fields.fileUrl ? 'true' : undefined} />
                          ${e?.fields.fileUrl ? html`<p class="error" role="alert">${e.fields.fileUrl}</p>` : null}
                          ${e && !e.fields.productId && !e.fields.fileUrl ? html`<p class="error" role="alert">${e.message}</p>` : null}
                          <button type="submit">Create product ${l.sku}</button>
                        </form>`
                        : null
                    }</td>
                    ${canMap ? html`<td>${mapForm(l, mapError?.key === listingKey(l.externalProductId, l.externalVariantId) ? mapError.message : undefined)}</td>` : null}
                  </tr>`;
                })}</tbody>
              </table></div>`
          }
          ${unmatched.nextCursor ? html`<p><a href=${`/dashboard/stores/${id}?unmatched=${encodeURIComponent(unmatched.nextCursor)}`}>More unmatched listings →</a></p>` : null}
        </section>
        <section aria-labelledby="matched-h">
          <h2 id="matched-h">Matched listings</h2>
          ${
            matched.data.length === 0
              ? html`<p class="muted">None yet.</p>`
              : html`<div class="table"><table>
                <thead><tr><th scope="col">Listing</th><th scope="col">SKU</th><th scope="col">Your product</th><th scope="col">Matched by</th></tr></thead>
                <tbody>${matched.data.map(
                  (l) => html`<tr>
                    <td>${l.title}</td><td>${l.sku ?? '—'}</td>
                    <td>${l.resellerProduct ? html`<a href=${`/dashboard/products/${l.resellerProduct.id}`}>${l.resellerProduct.sku}</a>` : null}</td>
                    <td>${l.match.by === 'link' ? 'mapped' : 'SKU'}${
                      l.match.linkId && d.page.can('stores:write')
                        ? html` <${PostButton} action=${`/dashboard/stores/${id}/links/${l.match.linkId}/delete`} csrf=${d.page.csrfToken} label="Unmap" name=${`Unmap ${l.title}`} confirm="Unmap this listing? Its next orders are skipped unless its SKU is one of your products." />`
                        : null
                    }</td>
                  </tr>`,
                )}</tbody>
              </table></div>`
          }
        </section>
        <section aria-labelledby="ingests-h">
          <h2 id="ingests-h">Store orders received</h2>
          ${
            ingests.data.length === 0
              ? html`<p class="muted">No store order yet.</p>`
              : html`<div class="table"><table>
                <thead><tr><th scope="col">Store order</th><th scope="col">Outcome</th><th scope="col">Print order</th><th scope="col">Skipped / error</th><th scope="col">Seen</th><th scope="col"></th></tr></thead>
                <tbody>${ingests.data.map(
                  (i) => html`<tr>
                    <td>${i.externalName ?? i.externalOrderId}</td>
                    <td><span class=${`badge ${i.status === 'placed' ? 'good' : i.status === 'failed' || i.status === 'no_print_lines' ? 'bad' : ''}`}>${ingestOutcome(i)}</span></td>
                    <td>${i.orderId ? html`<a href=${`/dashboard/orders/${i.orderId}`}>${i.orderId}</a>` : '—'}</td>
                    <td>${i.error ? html`<span class="error">${i.error}</span>` : null}${i.skippedLines.map((l) => html`<div>${skippedLine(l)}</div>`)}</td>
                    <td>${when(i.createdAt)}</td>
                    <td>${
                      connected &&
                      d.page.can('stores:write') &&
                      (i.status === 'no_print_lines' || i.status === 'failed')
                        ? html`<${PostButton} action=${`/dashboard/stores/${id}/ingests/${i.id}/retry`} csrf=${d.page.csrfToken} label="Retry" name=${`Retry ${i.externalName ?? i.externalOrderId}`} />`
                        : null
                    }</td>
                  </tr>`,
                )}</tbody>
              </table></div>`
          }
        </section>
      <//>`,
      productError || sandboxError || mapError ? 422 : 200,
    );

    /** The "Map to product" form of an unmatched listing: one of the reseller's products, the listing as it is. */
    function mapForm(l: Api['StoreListing'], message: string | undefined): VNode {
      const key = listingKey(l.externalProductId, l.externalVariantId);
      return html`<form method="post" action=${`/dashboard/stores/${id}/listings/map`} aria-label=${`Map ${l.title} to a product`}>
        <${CsrfField} token=${d.page.csrfToken} />
        <input type="hidden" name="externalProductId" value=${l.externalProductId} />
        ${l.externalVariantId ? html`<input type="hidden" name="externalVariantId" value=${l.externalVariantId} />` : null}
        <${Select} idPrefix=${`map-${key}`} name="resellerProduct" label=${`Your product for ${l.title}`} options=${resellerProducts} error=${message} required=${true} />
        <button type="submit">Map to product</button>
      </form>`;
    }
  };
}
