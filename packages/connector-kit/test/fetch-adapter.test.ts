import { expect } from 'chai';
import { ConnectorError, fetchOver, type HttpClient, type HttpRequest, type HttpResponse } from '../src/index.ts';

/** An HttpClient that records what it was asked and answers `reply`. */
function recording(
  reply: HttpResponse | Error = { status: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' },
): HttpClient & { sent: HttpRequest[] } {
  const sent: HttpRequest[] = [];
  return {
    sent,
    async request(req) {
      sent.push(req);
      if (reply instanceof Error) throw reply;
      return reply;
    },
    download: async (req) => Promise.reject(new Error(`no downloads in this test: ${req.url}`)),
  };
}

describe('connector kit: fetch adapter over the HttpClient', () => {
  it('sends a fetch call as one HttpRequest and answers a Response with its status, headers and body', async () => {
    const http = recording();
    const res = await fetchOver(http)('https://api.platform.example/v1/orders?limit=2', {
      method: 'post',
      headers: { Authorization: 'token', 'Content-Type': 'application/json' },
      body: '{"a":1}',
    });
    expect(http.sent).to.deep.equal([
      {
        method: 'POST',
        url: 'https://api.platform.example/v1/orders?limit=2',
        headers: { authorization: 'token', 'content-type': 'application/json' },
        body: '{"a":1}',
      },
    ]);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/json');
    expect(await res.json()).to.deep.equal({ ok: true });
  });

  it('reads URL objects and Request objects (method, headers and body)', async () => {
    const http = recording();
    await fetchOver(http)(new URL('https://api.platform.example/v1/shop'));
    await fetchOver(http)(
      new Request('https://api.platform.example/v1/orders', {
        method: 'PUT',
        headers: { 'x-key': 'k' },
        body: 'status=shipped',
      }),
    );
    expect(http.sent[0]).to.deep.equal({ method: 'GET', url: 'https://api.platform.example/v1/shop', headers: {} });
    expect(http.sent[1]).to.deep.include({
      method: 'PUT',
      url: 'https://api.platform.example/v1/orders',
      body: 'status=shipped',
    });
    expect(http.sent[1]!.headers).to.include({ 'x-key': 'k' });
  });

  it('sets the content type fetch would for form and text bodies, and sends bytes as UTF-8 text', async () => {
    const http = recording();
    await fetchOver(http)('https://api.platform.example/token', {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'r 1' }),
    });
    await fetchOver(http)('https://api.platform.example/text', { method: 'POST', body: 'plain' });
    await fetchOver(http)('https://api.platform.example/bytes', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new TextEncoder().encode('{"é":1}'),
    });
    expect(http.sent[0]).to.deep.include({ body: 'grant_type=refresh_token&refresh_token=r+1' });
    expect(http.sent[0]!.headers).to.deep.equal({ 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' });
    expect(http.sent[1]!.headers).to.deep.equal({ 'content-type': 'text/plain;charset=UTF-8' });
    expect(http.sent[2]).to.deep.include({ body: '{"é":1}', headers: { 'content-type': 'application/json' } });
  });

  it('names the operation and time budget it was made with on every request', async () => {
    const http = recording();
    await fetchOver(http, { operation: 'sdk', timeoutMs: 5000 })('https://api.platform.example/v1/shop');
    expect(http.sent[0]).to.include({ operation: 'sdk', timeoutMs: 5000 });
  });

  it('answers statuses as they are (a 3xx is not followed), and bodyless statuses without a body', async () => {
    const moved = await fetchOver(
      recording({ status: 302, headers: { location: 'https://elsewhere.example/' }, body: '' }),
    )('https://api.platform.example/');
    expect(moved.status).to.equal(302);
    expect(moved.headers.get('location')).to.equal('https://elsewhere.example/');
    const empty = await fetchOver(recording({ status: 204, headers: {}, body: '' }))('https://api.platform.example/', {
      method: 'DELETE',
    });
    expect(empty.status).to.equal(204);
    expect(await empty.text()).to.equal('');
  });

  it("rejects with the client's ConnectorError, refuses methods the client cannot send, and honours an aborted signal", async () => {
    const failing = new ConnectorError('upstream_unavailable', 'GET api.platform.example: timed out');
    const err = await fetchOver(recording(failing))('https://api.platform.example/').catch((e: unknown) => e);
    expect(err).to.equal(failing);
    const http = recording();
    expect(
      await fetchOver(http)('https://api.platform.example/', { method: 'OPTIONS' }).catch((e: unknown) => e),
    ).to.be.instanceOf(TypeError);
    const aborted = await fetchOver(http)('https://api.platform.example/', { signal: AbortSignal.abort() }).catch(
      (e: unknown) => e,
    );
    expect((aborted as Error).name).to.equal('AbortError');
    expect(http.sent).to.have.length(0);
  });
});
