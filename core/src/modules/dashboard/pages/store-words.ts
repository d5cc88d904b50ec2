import type { Request } from 'express';
import { INGEST_STATUS_WORDS, inWords } from '../../code-words.ts';
import { html, type VNode } from '../../../web/html.ts';
import type { Api } from '../dashboard-data.ts';

/** Why a skipped line was skipped, as the store page says it (the ingester's reasons, in a merchant's words). */
export function skipReason(reason: string): string {
  if (reason.startsWith('not one of your SKUs'))
    return 'its SKU is none of your products, and its listing is not mapped';
  return reason;
}

/** A skipped line: its SKU (or that it has none), quantity and why. */
export function skippedLine(l: { sku: string | null; quantity: number; reason: string }): string {
  return `${l.sku ?? 'A line without SKU'} × ${l.quantity}: ${skipReason(l.reason)}`;
}

/**
 * The notice after one store order's Retry (`?retried=<ingest id>`): what the retry actually did,
 * as the ingest now stands (among the page's `ingests`): placed, still skipped and why, waiting,
 * or failed again.
 */
export function retriedNotice(req: Request, ingests: Array<Api['StoreIngest']>): string | undefined {
  const id = typeof req.query.retried === 'string' ? req.query.retried : undefined;
  if (!id) return undefined;
  const i = ingests.find((x) => x.id === id);
  if (!i) return 'The store order was retried: its outcome shows below.';
  const name = `Store order ${i.externalName ?? i.externalOrderId}`;
  if (i.orderId) return `${name} is placed now: print order ${i.orderId}.`;
  if (i.status === 'no_print_lines') {
    const why = i.skippedLines.map(skippedLine).join('; ');
    return `${name} is still skipped: nothing of it was placed${why ? ` (${why})` : ''}. Create the product, or map the listing to one of yours, and retry.`;
  }
  if (i.status === 'waiting_address') return `${name} still waits for its shipping address from the store.`;
  if (i.status === 'failed') return `${name} failed again${i.error ? `: ${i.error}` : '.'}`;
  return `${name} was retried: it is ${ingestOutcome(i).toLowerCase()}.`;
}

/** A store order's outcome in words ("Skipped" when lines were skipped, "Nothing to print" when it had none). */
export function ingestOutcome(i: Pick<Api['StoreIngest'], 'status' | 'skippedLines'>): string {
  if (i.status === 'no_print_lines') return i.skippedLines.length ? 'Skipped' : 'Nothing to print';
  return inWords(INGEST_STATUS_WORDS, i.status);
}

/**
 * Where the store is, as its facts show it: its web address where the platform has one (a shop
 * domain or URL); a sandbox store has none; another platform's id is shown as that platform's.
 */
export function storeAddress(store: Api['Store'], platformName: string): VNode | null {
  const id = store.externalId;
  if (store.platform === 'SANDBOX') return null;
  if (/^https?:\/\//.test(id)) return html`<dt>Address</dt><dd><a href=${id} rel="noreferrer">${id}</a></dd>`;
  if (/^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(id)) return html`<dt>Address</dt><dd>${id}</dd>`;
  return html`<dt>Shop id at ${platformName}</dt><dd>${id}</dd>`;
}
