import { sendBytes, startHttpsServer } from '../core/test/helpers/https-server.ts';
import { tinyPdf } from '../core/test/print-files/print-file-fixtures.ts';

/**
 * The bench's outside world, in its own process as it would be on other machines (in the load
 * generator's process it would share autocannon's event loop, and a busy autocannon would
 * delay every receipt): the print-file host (`/flyer.pdf`) and the resellers' webhook receiver
 * (`/hooks/...`: each event's receipt time and its latency from the event's `createdAt`).
 * `GET /receipts?from=N` answers the receipts from the N-th on. It is also the bench's
 * WooCommerce store (`/wp-json/wc/v3/...`): a catalogue of BENCH_LISTINGS simple products
 * (default 10,000) paged as WooCommerce pages them, and no orders or webhooks. Prints its URL
 * and the CA the service must trust as one JSON line.
 */
const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 10_000);

/** A page of the synthetic catalogue, with WooCommerce's paging headers. */
function wooPage(
  url: URL,
  total: number,
  item: (i: number) => unknown,
): { headers: Record<string, string>; body: string } {
  const perPage = Number(url.searchParams.get('per_page') ?? 10);
  const page = Number(url.searchParams.get('page') ?? 1);
  const items = [];
  for (let i = (page - 1) * perPage; i < Math.min(total, page * perPage); i++) items.push(item(i));
  return {
    headers: {
      'content-type': 'application/json',
      'x-wp-total': String(total),
      'x-wp-totalpages': String(Math.max(1, Math.ceil(total / perPage))),
    },
    body: JSON.stringify(items),
  };
}

const receipts: Array<[at: number, latency: number]> = [];
let refused = 0;
const host = await startHttpsServer((req, res, body) => {
  const url = new URL(req.url ?? '/', 'https://localhost');
  if (url.pathname.startsWith('/hooks/')) {
    const at = Date.now();
    try {
      const event = JSON.parse(body.toString('utf8')) as { createdAt: string };
      receipts.push([at, at - Date.parse(event.createdAt)]);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    } catch {
      refused++;
      res.writeHead(400).end();
    }
  } else if (url.pathname === '/wp-json/wc/v3/products') {
    const page = wooPage(url, LISTINGS, (i) => ({
      id: 10_000 + i,
      name: `Bench product ${i}`,
      type: 'simple',
      status: 'publish',
      sku: `BENCH-${i}`,
    }));
    res.writeHead(200, page.headers).end(page.body);
  } else if (url.pathname === '/wp-json/wc/v3/orders' || url.pathname === '/wp-json/wc/v3/webhooks') {
    const page = wooPage(url, 0, () => null);
    res.writeHead(200, page.headers).end(page.body);
  } else if (url.pathname === '/receipts') {
    const from = Number(url.searchParams.get('from') ?? 0);
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ count: receipts.length, refused, receipts: receipts.slice(from) }));
  } else {
    res.writeHead(404).end();
  }
});
host.route('/flyer.pdf', sendBytes(tinyPdf(), 'application/pdf'));
// The bench only needs the responses and the receipts: keep no request history.
setInterval(() => void (host.requests.length = 0), 1000).unref();
process.stdout.write(`${JSON.stringify({ port: Number(new URL(host.url).port), url: host.url, ca: host.ca })}\n`);
process.on('SIGTERM', () => void host.close().then(() => process.exit(0)));
