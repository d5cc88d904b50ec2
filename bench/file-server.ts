import { sendBytes, startHttpsServer } from '../core/test/helpers/https-server.ts';
import { tinyPdf } from '../core/test/print-files/print-file-fixtures.ts';

/**
 * The print-file host of the bench, in its own process as it would be on its own machine (in
 * the load generator's process it would share autocannon's event loop). Prints its URL and
 * the CA the service must trust as one JSON line.
 */
const files = await startHttpsServer();
files.route('/flyer.pdf', sendBytes(tinyPdf(), 'application/pdf'));
// The bench only needs the responses: keep no history.
setInterval(() => void (files.requests.length = 0), 1000).unref();
process.stdout.write(`${JSON.stringify({ port: Number(new URL(files.url).port), url: files.url, ca: files.ca })}\n`);
process.on('SIGTERM', () => void files.close().then(() => process.exit(0)));
