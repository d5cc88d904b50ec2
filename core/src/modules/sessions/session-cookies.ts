import type { Request, Response } from 'express';
import type { SessionKind } from './sessions-tables.ts';

/**
 * How one kind of browser session is carried: its cookie's name and attributes, and how long
 * it lives. Operators and resellers have different cookies (and different stores of sessions
 * by kind), so neither ever opens the other's pages.
 */
export interface SessionCookieOptions {
  kind: SessionKind;
  name: string;
  ttlMs: number;
  sameSite: 'Strict' | 'Lax';
  /** Secure: only over HTTPS (on when PUBLIC_URL is https). */
  secure: boolean;
  path: string;
}

const DEFAULTS: Record<SessionKind, { name: string; ttlMs: number; sameSite: 'Strict' | 'Lax' }> = {
  // The console acts on everything: never sent on a request another site starts.
  operator: { name: 'pa_ops', ttlMs: 8 * 3600 * 1000, sameSite: 'Strict' },
  // A reseller arrives from a link (a login link, a store's admin): Lax, so that first GET carries it.
  reseller: { name: 'pa_dash', ttlMs: 12 * 3600 * 1000, sameSite: 'Lax' },
};

/**
 * The cookie options of a kind for a deployment at `publicUrl`: Secure when it is https, and
 * then the `__Host-` name prefix (the browser refuses such a cookie unless it is Secure, for the
 * whole host and without a Domain: no sibling subdomain can plant one).
 */
export function sessionCookieOptions(
  kind: SessionKind,
  publicUrl: string,
  overrides: Partial<Omit<SessionCookieOptions, 'kind'>> = {},
): SessionCookieOptions {
  const secure = overrides.secure ?? publicUrl.startsWith('https:');
  const base = DEFAULTS[kind];
  const path = overrides.path ?? '/';
  const name = overrides.name ?? (secure && path === '/' ? `__Host-${base.name}` : base.name);
  return {
    kind,
    name,
    ttlMs: overrides.ttlMs ?? base.ttlMs,
    sameSite: overrides.sameSite ?? base.sameSite,
    secure,
    path,
  };
}

/** The `Set-Cookie` value that hands the browser `token` until `expires`. */
export function sessionCookieHeader(opts: SessionCookieOptions, token: string, expires: Date): string {
  return [
    `${opts.name}=${token}`,
    `Path=${opts.path}`,
    `Expires=${expires.toUTCString()}`,
    `Max-Age=${Math.max(0, Math.floor((expires.getTime() - Date.now()) / 1000))}`,
    'HttpOnly',
    `SameSite=${opts.sameSite}`,
    ...(opts.secure ? ['Secure'] : []),
  ].join('; ');
}

export function setSessionCookie(res: Response, opts: SessionCookieOptions, token: string, expires: Date): void {
  res.append('Set-Cookie', sessionCookieHeader(opts, token, expires));
}

export function clearSessionCookie(res: Response, opts: SessionCookieOptions): void {
  res.append(
    'Set-Cookie',
    [
      `${opts.name}=`,
      `Path=${opts.path}`,
      'Expires=Thu, 01 Jan 1970 00:00:00 GMT',
      'Max-Age=0',
      'HttpOnly',
      `SameSite=${opts.sameSite}`,
      ...(opts.secure ? ['Secure'] : []),
    ].join('; '),
  );
}

/** One cookie of the request (the first of that name), or undefined. */
export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value);
    } catch {
      return undefined;
    }
  }
  return undefined;
}
