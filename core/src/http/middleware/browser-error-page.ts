import type { NextFunction, Request, Response } from 'express';
import { Refusal } from '../../kernel/refusal.ts';
import { httpAnswer } from '../error-catalogue.ts';
import { html, Layout, sendPage } from '../../web/html.ts';

/**
 * A merchant's browser on its way through a platform's install (`GET /connectors/<platform>/
 * install`, the platform's redirect back to `/callback`, the key-issuing flow's return) is a
 * person, not an API client: a refusal there is a page saying what happened and where to go,
 * not the error's JSON. Clients that ask for JSON (and every other path) get the API's shape
 * from the error handler after this one.
 */
export function browserErrorPage(prefix: string, backTo: { href: string; label: string }) {
  return (err: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (
      !(err instanceof Refusal) ||
      res.headersSent ||
      req.method !== 'GET' ||
      !req.path.startsWith(prefix) ||
      req.accepts(['json', 'html']) !== 'html'
    ) {
      next(err);
      return;
    }
    const { status, headers } = httpAnswer(err);
    res.set(headers);
    sendPage(
      res,
      html`<${Layout} title="The store was not connected">
        <p role="alert">${err.message}</p>
        <p><a href=${backTo.href}>${backTo.label}</a></p>
      <//>`,
      status,
    );
  };
}
