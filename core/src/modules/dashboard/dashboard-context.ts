import type { Request, Response } from 'express';
import type { AuthContext } from '../../kernel/auth-context.ts';
import type { BrowserSession } from '../sessions/session-store.ts';
import type { PageSession } from './pages/parts.ts';

/** What a dashboard handler gets: the request, its session, and the reseller API as that session's reseller. */
export interface DashContext {
  req: Request;
  res: Response;
  session: BrowserSession;
  caller: AuthContext;
  page: PageSession;
  /** The reseller API's route `method path`, in-process, as this reseller in this mode (DashboardApi). */
  api<T = unknown>(
    method: string,
    path: string,
    input?: { query?: Record<string, string | undefined>; body?: unknown },
  ): Promise<T>;
  /** The form body's text fields. */
  form: Record<string, string>;
}

export type DashHandler = (d: DashContext) => Promise<void>;

/** `/dashboard/...?done=<key>`: the notice a redirect after a form shows. */
export const NOTICES: Record<string, string> = {
  'store-connected': 'The store is connected. Its listings are being read.',
  'store-disconnected': 'The store is disconnected: no more orders are taken from it.',
  'sync-requested': 'A sync was asked for: new orders appear below as they arrive.',
  'listing-mapped': 'The listing is mapped: its orders print as your product from now on.',
  'listing-unmapped': 'The listing is unmapped: its next orders are skipped unless its SKU is one of your products.',
  'skipped-retried': 'The skipped store orders are being retried: they show below as they are placed.',
  'product-created': 'The product is created.',
  'product-saved': 'The product is saved.',
  'product-deleted': 'The product is deleted.',
  'listing-published': 'The product is published to the store, with your SKU and price, and linked to this product.',
  'order-cancelled': 'The order is cancelled.',
  'file-supplied': 'The file is attached to the line; it is checked before printing.',
  'webhook-deleted': 'The endpoint is deleted.',
  'delivery-retried': 'The delivery is sent again.',
  'test-sent': 'A test event is on its way.',
  'mode-switched': 'Switched mode.',
  'sandbox-listing-added':
    'The listing is added to the sandbox store. Its SKU matches your product, or it shows under Unmatched listings in a few seconds.',
  'sandbox-order-made': 'The store order is made in the sandbox store: it arrives below as a real store order would.',
};

export function noticeOf(req: Request): string | undefined {
  const key = typeof req.query.done === 'string' ? req.query.done : undefined;
  return key ? NOTICES[key] : undefined;
}

export function redirect(res: Response, to: string): void {
  res.redirect(303, to);
}
