import type { NextFunction, Request, Response } from 'express';
import { html, sendPage } from '../../web/html.ts';
import type { Logger } from '../../infra/logger.ts';
import { Refusal } from '../../kernel/refusal.ts';
import { PlainLayout } from './pages/parts.ts';

/**
 * A dashboard page that failed on our side, for a person: a page saying so in words, what to do,
 * and a reference to give us (the request id), never the API's JSON. A refusal goes on to the
 * API's error handler as it is (a forged form, a sign-in needed); an API client asking for JSON
 * gets the API's shape.
 */
/** Whether an error is an outage of a part we depend on, and how it answers (the edge's, given by the composition root). */
export type AsUnavailable = (err: unknown) => { status: number; headers: Record<string, string> } | undefined;

export function dashboardErrorPage(logger: Logger, asServiceUnavailable: AsUnavailable) {
  return (err: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (err instanceof Refusal || res.headersSent || req.accepts(['json', 'html']) !== 'html') return next(err);
    const unavailable = asServiceUnavailable(err);
    logger.error('dashboard page failed', {
      requestId: req.requestId,
      method: req.method,
      path: req.path,
      error: err instanceof Error ? err.stack : String(err),
    });
    if (unavailable) res.set(unavailable.headers);
    sendPage(
      res,
      html`<${PlainLayout} title="Something went wrong">
        <p role="alert">${unavailable ? 'The dashboard is briefly unavailable: a part of it does not answer.' : 'Something went wrong on our side: this page could not be shown.'} Try again in a moment.</p>
        <p class="muted">If it keeps happening, contact us and mention reference <code data-testid="reference">${req.requestId}</code>.</p>
        <p><a href="/dashboard">Back to the dashboard</a></p>
      <//>`,
      unavailable ? unavailable.status : 500,
    );
  };
}
