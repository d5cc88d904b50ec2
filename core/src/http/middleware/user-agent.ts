import type { NextFunction, Request, Response } from 'express';

/** Generic library defaults the edge refuses (spec §1: the CDN answers these with code 1010). */
export const DEFAULT_BLOCKED_USER_AGENTS = [
  'python-requests',
  'Python-urllib',
  'Go-http-client',
  'Java/',
  'libwww-perl',
  'okhttp',
];

/** Refuses requests without a User-Agent, or with a generic library default, before anything else runs. */
export function userAgentGuard(extra: string[] = []) {
  const blocked = [...DEFAULT_BLOCKED_USER_AGENTS, ...extra].map((s) => s.toLowerCase());
  return (req: Request, res: Response, next: NextFunction): void => {
    const ua = req.headers['user-agent']?.trim();
    const lower = ua?.toLowerCase();
    if (!lower || blocked.some((b) => lower.startsWith(b) || lower.includes(` ${b}`))) {
      res.status(403).json({
        error: {
          code: '1010',
          message: ua
            ? `Access denied: the User-Agent '${ua}' is a generic library default. Send your own User-Agent identifying your integration.`
            : 'Access denied: send a User-Agent header identifying your integration.',
        },
      });
      return;
    }
    next();
  };
}
