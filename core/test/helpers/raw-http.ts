import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/**
 * One HTTP/1.1 request written to a socket as given: the target is not normalized (fetch would
 * resolve `..` and `%2e%2e`) and the body is not touched. nock, once any test file imports it,
 * intercepts fetch and node:http for the whole run and decompresses request bodies on the way
 * (throwing on one that does not decompress); a test of how the service reads such bodies
 * needs a client nothing stands between.
 */
export function rawRequest(
  baseUrl: string,
  request: { method: string; target: string; headers?: Record<string, string>; body?: Buffer | string },
): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  const body = request.body === undefined ? Buffer.alloc(0) : Buffer.from(request.body);
  const head = [
    `${request.method} ${request.target} HTTP/1.1`,
    `host: ${hostname}:${port}`,
    'connection: close',
    ...(request.body !== undefined ? [`content-length: ${body.length}`] : []),
    ...Object.entries(request.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let headChecked = false;
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (headChecked) return;
      const received = Buffer.concat(chunks);
      const end = received.indexOf('\r\n\r\n');
      if (end === -1) return;
      headChecked = true;
      // An event stream (GET /events/stream) never ends by itself: its answer is the head.
      if (/^content-type:\s*text\/event-stream/im.test(received.subarray(0, end).toString('latin1'))) {
        settle();
        socket.destroy();
      }
    });
    let settled = false;
    const settle = (err?: Error) => {
      if (settled) return;
      settled = true;
      try {
        resolve(parseResponse(Buffer.concat(chunks)));
      } catch (parseErr) {
        reject(err ?? parseErr);
      }
    };
    // A server may answer and close before it read the whole body (the write then fails): the answer counts.
    socket.on('error', settle);
    socket.on('close', () => settle());
    // latin1: header values are bytes, as a client sends them.
    // Not ended: a client that half-closes may see the server close before it answers.
    // `connection: close` has the server close the socket once it has answered.
    socket.write(Buffer.concat([Buffer.from(`${head}\r\n\r\n`, 'latin1'), body]));
  });
}

function parseResponse(bytes: Buffer): RawResponse {
  const end = bytes.indexOf('\r\n\r\n');
  if (end === -1) throw new Error(`no HTTP response: ${JSON.stringify(bytes.toString('latin1').slice(0, 200))}`);
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = bytes.subarray(end + 4);
  if (headers['transfer-encoding']?.includes('chunked')) body = unchunk(body);
  return { status: Number(statusLine!.split(' ')[1]), headers, text: body.toString('utf8') };
}

function unchunk(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd === -1) break;
    const size = parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    if (!size) break;
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}
