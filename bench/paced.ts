import { Agent, request } from 'node:http';
import type { Measured } from './run.ts';

/** One request of a paced run: what to send (built when it is due, so each can carry a fresh key or body). */
export interface PacedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** What a paced run measured: a Measured row without its name and CPU figure (`rps` is the rate answered). */
export type PacedResult = Omit<Measured, 'name' | 'cpuUsPerRequest' | 'apiCpuUsPerRequest'>;

/**
 * An open-loop load at a constant arrival rate (as wrk2 does it): request i is due at
 * start + i / rate, whatever became of the earlier ones, and its latency is counted from when it
 * was due, not from when a free connection sent it, so a stall is never hidden by the requests
 * it held back (coordinated omission). autocannon's `overallRate` instead lets every connection
 * send its share of a second at the start of that second: a burst once a second, not a rate.
 */
export async function pacedRun(opts: {
  baseUrl: string;
  rate: number;
  durationSeconds: number;
  connections: number;
  next: (i: number) => PacedRequest;
}): Promise<PacedResult> {
  const url = new URL(opts.baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: opts.connections });
  const total = Math.max(1, Math.round(opts.rate * opts.durationSeconds));
  const interval = 1000 / opts.rate;
  const latencies: number[] = [];
  let errors = 0;
  let non2xx = 0;
  const start = performance.now();
  const inFlight: Array<Promise<void>> = [];

  const send = (i: number, dueAt: number): Promise<void> =>
    new Promise<void>((resolve) => {
      const r = opts.next(i);
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          method: r.method,
          path: r.path,
          headers: { ...r.headers, ...(r.body ? { 'content-length': String(Buffer.byteLength(r.body)) } : {}) },
          agent,
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            latencies.push(performance.now() - dueAt);
            if (res.statusCode! < 200 || res.statusCode! >= 300) non2xx++;
            resolve();
          });
        },
      );
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(r.body);
    });

  for (let i = 0; i < total; i++) {
    const dueAt = start + i * interval;
    const wait = dueAt - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    inFlight.push(send(i, dueAt));
  }
  await Promise.all(inFlight);
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (p: number) =>
    latencies.length === 0
      ? 0
      : Math.round(latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)]!);
  return { requests: latencies.length, rps: latencies.length / seconds, p50: at(50), p99: at(99), errors, non2xx };
}
