import { Agent, request as httpsRequest } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { LookupFunction } from 'node:net';
import type { SecureContext } from 'node:tls';
import { SafeFetchError } from './safe-fetch-error.ts';
import type { CheckedTarget } from './target-resolver.ts';

/** What one hop sends. */
export interface HopRequest {
  method: string;
  headers: Record<string, string>;
  body: string | Buffer | undefined;
  /** Trusted CAs; undefined keeps Node's defaults. */
  secureContext: SecureContext | undefined;
  /** How many body bytes to keep, decided once the status line and headers are in. */
  bodyLimit: (status: number, headers: IncomingHttpHeaders) => number;
  signal: AbortSignal;
}

/** What one hop got back. */
export interface HopResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * Keep-alive agents, one per trust store: deliveries and file checks to the same host reuse a
 * TLS connection (and resume sessions) instead of a full handshake per request. A pooled
 * socket is connected to an address that was checked when it was opened; new sockets connect
 * through the request's pinned lookup. Every socket a burst opened may wait idle for the next
 * one (as many free as in use), so a busy receiver is not handshaken with again and again;
 * an idle socket closes after 30 s.
 */
const agents = new Map<SecureContext | undefined, Agent>();
function agentFor(secureContext: SecureContext | undefined): Agent {
  let agent = agents.get(secureContext);
  if (!agent) {
    agent = new Agent({
      keepAlive: true,
      keepAliveMsecs: 1000,
      maxSockets: 64,
      maxFreeSockets: 64,
      timeout: 30_000,
      scheduling: 'lifo',
    });
    agents.set(secureContext, agent);
  }
  return agent;
}

/**
 * One HTTPS request/response to an already checked target. The socket may connect only to
 * the checked addresses: the custom `lookup` hands them to Node instead of asking DNS a
 * second time, so a host cannot resolve to a public address for the check and to a private
 * one for the connection (DNS rebinding). TLS still verifies the certificate against the
 * host name. The body is read up to the limit, then the socket is dropped.
 */
export function exchange(target: CheckedTarget, hop: HopRequest): Promise<HopResponse> {
  return new Promise<HopResponse>((resolve, reject) => {
    let settled = false;
    // A response read to its end leaves the socket to the agent's pool; anything else (an
    // error, a timeout, a body cut at the limit) drops it.
    const finish = (outcome: { ok: HopResponse } | { err: SafeFetchError }, reusable = false): void => {
      if (settled) return;
      settled = true;
      hop.signal.removeEventListener('abort', onAbort);
      if (!reusable) req.destroy();
      if ('ok' in outcome) resolve(outcome.ok);
      else reject(outcome.err);
    };
    const fail = (err: unknown): void => finish({ err: toSafeFetchError(err, target.url.href, hop.signal) });
    const onAbort = (): void => fail(undefined);

    const req = httpsRequest({
      protocol: 'https:',
      hostname: target.host,
      port: target.url.port === '' ? 443 : Number(target.url.port),
      path: `${target.url.pathname}${target.url.search}`,
      method: hop.method,
      headers: hop.headers,
      lookup: pinnedLookup(target),
      agent: agentFor(hop.secureContext),
      ...(hop.secureContext ? { secureContext: hop.secureContext } : {}),
    });
    req.on('error', fail);
    req.on('response', (res: IncomingMessage) =>
      readBody(
        res,
        hop,
        (body, whole) => finish({ ok: { status: res.statusCode ?? 0, headers: res.headers, body } }, whole),
        fail,
      ),
    );
    if (hop.signal.aborted) return onAbort();
    hop.signal.addEventListener('abort', onAbort);
    req.end(hop.body);
  });
}

function readBody(
  res: IncomingMessage,
  hop: HopRequest,
  done: (body: Buffer, whole: boolean) => void,
  fail: (err: unknown) => void,
): void {
  const limit = Math.max(0, hop.bodyLimit(res.statusCode ?? 0, res.headers));
  const chunks: Buffer[] = [];
  let size = 0;
  const complete = (whole = false): void => done(Buffer.concat(chunks, size), whole);
  if (limit === 0) return complete();
  res.on('data', (chunk: Buffer) => {
    const room = limit - size;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    chunks.push(kept);
    size += kept.length;
    if (size >= limit) complete(); // enough: `finish` destroys the socket, nothing more is downloaded
  });
  res.on('end', () => complete(true));
  res.on('error', fail);
  res.on('close', () => {
    if (!res.complete) fail(new Error('the connection closed before the response was complete'));
  });
}

function pinnedLookup(target: CheckedTarget): LookupFunction {
  return (_hostname, options, callback) => {
    const wanted =
      options.family === 4 || options.family === 6
        ? target.addresses.filter((a) => a.family === options.family)
        : target.addresses;
    const usable = wanted.length > 0 ? wanted : target.addresses;
    // Node asks for `all` when it races IPv4 and IPv6 (autoSelectFamily); every one was checked.
    if (options.all)
      callback(
        null,
        usable.map((a) => ({ address: a.address, family: a.family })),
      );
    else callback(null, usable[0]!.address, usable[0]!.family);
  };
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_)|CERT|SELF_SIGNED|UNABLE_TO_|^EPROTO$/;

function toSafeFetchError(err: unknown, url: string, signal: AbortSignal): SafeFetchError {
  if (err instanceof SafeFetchError) return err;
  if (signal.aborted) return new SafeFetchError('timeout', `timed out talking to ${url}`, { url });
  const code = String((err as NodeJS.ErrnoException | undefined)?.code ?? '');
  const message = (err as Error | undefined)?.message ?? 'unknown error';
  if (TLS_CODE.test(code))
    return new SafeFetchError('tls_failed', `TLS failed for ${url}: ${message}`, { url, cause: err });
  return new SafeFetchError('connection_failed', `could not talk to ${url}: ${message}`, { url, cause: err });
}
