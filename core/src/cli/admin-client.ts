import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';

export const CLI_USER_AGENT = 'print-api-admin-cli/1.0';

/** A failure the CLI reports in one clear message (no stack), with its exit code. */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}

/** Where the service is and how to sign in: the way `npm start` printed them. */
export interface Target {
  /** `http://127.0.0.1:3000` (no trailing slash, no base path). */
  origin: string;
  /** How the origin was found, for messages. */
  originFrom: string;
  adminToken(): string;
}

/**
 * `--url`, else PUBLIC_URL, else `http://HOST:PORT` (what `npm start` prints: the same
 * environment finds the same service). The token: `--token`, else ADMIN_TOKEN, else the one
 * `npm start` generated into DATA_DIR/secrets.json.
 */
export function resolveTarget(config: Config, flags: { url?: string | undefined; token?: string | undefined }): Target {
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  const [origin, from] = flags.url
    ? [flags.url, '--url']
    : config.PUBLIC_URL
      ? [config.PUBLIC_URL, 'PUBLIC_URL']
      : [`http://${host.includes(':') ? `[${host}]` : host}:${config.PORT}`, 'HOST and PORT'];
  return {
    origin: origin.replace(/\/+$/, ''),
    originFrom: from,
    adminToken: () => {
      if (flags.token) return flags.token;
      if (config.ADMIN_TOKEN) return config.ADMIN_TOKEN;
      const file = path.resolve(config.DATA_DIR, 'secrets.json');
      try {
        return (JSON.parse(readFileSync(file, 'utf8')) as { adminToken: string }).adminToken;
      } catch {
        throw new CliError(
          `No back-office token: ADMIN_TOKEN is not set and ${file} does not exist.\n` +
            'Start the service once (`npm start` generates and prints the token into DATA_DIR), or pass --token / set ADMIN_TOKEN.',
        );
      }
    },
  };
}

/** Why a request never got an answer, in words (`ECONNREFUSED: nothing listens there`). */
export function unreachableReason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? (err as { code?: string }).code;
  const explained: Record<string, string> = {
    ECONNREFUSED: 'connection refused: nothing listens there',
    ENOTFOUND: 'the host name does not resolve',
    ECONNRESET: 'the connection was reset',
    ETIMEDOUT: 'the connection timed out',
    EHOSTUNREACH: 'the host is unreachable',
  };
  return code
    ? `${code}, ${explained[code] ?? cause?.message ?? 'network error'}`
    : (cause?.message ?? (err as Error).message);
}

export function unreachable(url: string, target: Target, err: unknown): CliError {
  return new CliError(
    `Cannot reach the service at ${url} (${unreachableReason(err)}).\n` +
      `The address came from ${target.originFrom}. Is the service running (\`npm start\`, which prints its address)? ` +
      'Point the CLI elsewhere with --url or PUBLIC_URL (or the HOST and PORT the service uses).',
  );
}

/** Calls the back-office API; answers the parsed JSON body and the status. */
export async function adminCall(
  target: Target,
  method: string,
  p: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const url = `${target.origin}/admin/v1${p}`;
  const token = target.adminToken();
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        'user-agent': CLI_USER_AGENT,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch (err) {
    throw unreachable(url, target, err);
  }
  const text = await res.text();
  if (res.status === 401 || res.status === 404 || res.status === 405)
    await requireService(target, method, url, res.status);
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    throw new CliError(
      `${method} ${url} answered ${res.status} with a body that is not JSON: is ${target.origin} the print-api service?\n${text.slice(0, 300)}`,
    );
  }
  if (res.status === 401) {
    throw new CliError(
      `${method} ${url} answered 401: the back-office token was refused (an operator token may be revoked or expired). Use an operator token (--token opt_…), the token \`npm start\` printed (DATA_DIR/secrets.json), or ADMIN_TOKEN / --token.`,
    );
  }
  return { status: res.status, body: parsed };
}

/**
 * A 401 or 404 can be the back-office's own answer (a wrong token, an unknown id) or the answer
 * of something else at that address: `--url http://…/api/reseller/v1` reaches the reseller API,
 * which refuses the back-office token as an API key. The service answers `/healthz` at its
 * origin; where that is not so, the URL is the problem, not the token.
 */
async function requireService(target: Target, method: string, url: string, status: number): Promise<void> {
  let healthy = false;
  try {
    const probe = await fetch(`${target.origin}/healthz`, {
      headers: { 'user-agent': CLI_USER_AGENT },
      signal: AbortSignal.timeout(5000),
    });
    healthy = probe.ok && ((await probe.json().catch(() => null)) as { status?: string } | null)?.status !== undefined;
  } catch {
    healthy = false;
  }
  if (healthy) return;
  const origin = new URL(target.origin).origin;
  throw new CliError(
    `No back-office API at ${target.origin}/admin/v1 (${method} ${url} answered ${status}); the base URL is the service's origin` +
      `${origin !== target.origin ? `: ${origin}, without ${target.origin.slice(origin.length)}` : ', as `npm start` prints it (http://127.0.0.1:3000)'}. It came from ${target.originFrom}.`,
  );
}
