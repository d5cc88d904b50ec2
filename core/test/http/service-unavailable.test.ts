import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { requestId } from '../../src/http/middleware/request-id.ts';
import { errorHandler } from '../../src/http/middleware/error-handler.ts';
import { silentLogger } from '../../src/infra/logger.ts';

/** An app whose one route throws `err`, behind the service's error middleware. */
async function failingWith(err: Error): Promise<{ status: number; headers: Headers; body: any }> {
  const app = express();
  app.use(requestId());
  app.get('/fail', () => {
    throw err;
  });
  app.use(errorHandler(silentLogger()));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/fail`);
    return { status: res.status, headers: res.headers, body: await res.json() };
  } finally {
    server.close();
  }
}

describe('a dependency outage in a request', function () {
  for (const message of [
    'Command timed out',
    "Stream isn't writeable and enableOfflineQueue options is false",
    'Connection is closed.',
  ]) {
    it(`answers Redis's '${message}' with 503 service_unavailable and Retry-After, not 500`, async () => {
      const res = await failingWith(new Error(message));
      expect(res.status).to.equal(503);
      expect(res.headers.get('retry-after')).to.match(/^\d+$/);
      expect(res.body.error.code).to.equal('service_unavailable');
      expect(res.body.error.message).to.be.a('string').and.not.include(message);
    });
  }

  it('answers any other error with 500 internal_error, as before', async () => {
    const res = await failingWith(new Error('ERR wrong number of arguments'));
    expect(res.status).to.equal(500);
    expect(res.body.error.code).to.equal('internal_error');
    expect(res.headers.get('retry-after')).to.equal(null);
  });
});
