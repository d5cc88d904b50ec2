import express from 'express';

/** The yardstick: a bare Express JSON endpoint, measured in the same run as the service. */
const app = express();
app.get('/json', (_req, res) => void res.json({ status: 'ok' }));
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
