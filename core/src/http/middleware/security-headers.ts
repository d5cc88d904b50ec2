import helmet from 'helmet';
import type { RequestHandler } from 'express';

/**
 * The security headers of every response, set once at the app (before any router), so no
 * page, present or future, can be served without them: the consoles, the dashboard, the queue
 * dashboard, the API references, the API's JSON and its errors alike.
 *
 * - CSP: only the site's own scripts (no inline script anywhere: the pages' one script and the
 *   docs' init are files); inline styles are allowed (the pages carry their CSS inline). No
 *   framing (`frame-ancestors 'none'`, and X-Frame-Options for older browsers). `base-uri 'self'`
 *   because the queue dashboard sets a `<base>` to its own path.
 * - HSTS only when the deployment is reached over https (PUBLIC_URL): on a plain-http
 *   deployment the header would be ignored at best, and would pin a test host at worst.
 * - No `X-Powered-By`, `nosniff`, `Referrer-Policy: same-origin` (a page's URL can carry a
 *   cursor or a filter: it does not leave the site).
 */
export function securityHeaders(opts: { https: boolean }): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        'default-src': ["'none'"],
        'script-src': ["'self'"],
        'style-src': ["'self'", "'unsafe-inline'"],
        'img-src': ["'self'", 'data:'],
        'font-src': ["'self'", 'data:'],
        'connect-src': ["'self'"],
        'form-action': ["'self'"],
        'frame-ancestors': ["'none'"],
        'base-uri': ["'self'"],
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'same-origin' },
    strictTransportSecurity: opts.https ? { maxAge: 365 * 24 * 3600, includeSubDomains: false } : false,
    // The service's JSON is read by servers, not embedded by other sites' pages; nothing needs loosening.
    crossOriginResourcePolicy: { policy: 'same-origin' },
  });
}
