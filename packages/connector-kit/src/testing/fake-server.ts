import type { FakeHttpsServer, FakeRequestHandler } from './fake-platform.ts';

/** A fake platform's answer: status, body (JSON unless a string), headers. */
export type FakeReply = [status: number, body: unknown, headers?: Record<string, string>];

/**
 * Adapts a fake written as `(request) => reply` (the web `Request` a nock interceptor gets
 * too) to a handler of the fake platform's HTTPS server. `rewrite` maps the path the server
 * received to the one the fake answers (a store served under `/<store>/` answering from its root).
 *
 * @example
 * ```ts
 * server.route('/api/orders', answerWith(async (req) => [200, [...orders.values()]]));
 * ```
 */
export function answerWith(
  answer: (req: Request) => Promise<FakeReply> | FakeReply,
  rewrite: (path: string) => string = (p) => p,
): FakeRequestHandler {
  return async (req, res, rawBody) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const method = req.method ?? 'GET';
    const request = new Request(`https://${req.headers.host ?? 'localhost'}${rewrite(req.url ?? '/')}`, {
      method,
      headers,
      ...(method === 'GET' || method === 'HEAD' ? {} : { body: new Uint8Array(rawBody) }),
    });
    const [status, body, replyHeaders = {}] = await answer(request);
    const text = typeof body === 'string' ? body : body === undefined ? '' : JSON.stringify(body);
    const lower = Object.fromEntries(Object.entries(replyHeaders).map(([k, v]) => [k.toLowerCase(), v]));
    res.writeHead(status, {
      'content-type': typeof body === 'string' ? 'text/plain' : 'application/json',
      ...lower,
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  };
}

/**
 * Serves a platform whose stores live under their own path of one server (`https://localhost:PORT/shop-N`, a shop in
 * a subfolder, or a shop's domain as its prefix): a request goes, its path rewritten to the shop's root, to `answer`
 * with the shop its first path segment names in `shops` (read at each request); an unknown shop is 404.
 */
export function serveShopsByPath<S>(
  server: FakeHttpsServer,
  shops: ReadonlyMap<string, S>,
  answer: (shop: S, req: Request) => Promise<FakeReply> | FakeReply,
): void {
  server.fallback((req, res, body) => {
    const name = (req.url ?? '/').split('/')[1] ?? '';
    const shop = shops.get(name);
    if (!shop) return void res.writeHead(404).end();
    return answerWith(
      (r) => answer(shop, r),
      (p) => p.slice(name.length + 1) || '/',
    )(req, res, body);
  });
}
