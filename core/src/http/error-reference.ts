import { DETAIL_CATALOGUE, ERROR_CATALOGUE, RATE_LIMIT_RULE, USER_AGENT_RULE } from './error-catalogue.ts';

// The error reference, rendered from the catalogue: as Markdown (docs/errors.md, `npm run docs:errors`) and as the page
// served at /api/reseller/v1/docs/errors.

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The error reference as Markdown (docs/errors.md). */
export function errorReferenceMarkdown(): string {
  return [
    '# Error reference',
    '',
    '<!-- generated from core/src/http/error-catalogue.ts by `npm run docs:errors`; a test fails when it is out of date -->',
    '',
    'Every error of the Reseller Print API has the same shape, with an English message written for a person and a',
    'stable `code` written for your code:',
    '',
    '```json',
    '{ "error": { "code": "invalid_options", "message": "Line 0: \'sheet\' is not an option of business-cards; allowed keys: paper, sides, finish, corners.",',
    '             "details": [ { "line": 0, "field": "options.sheet", "code": "invalid_options", "allowedKeys": ["paper", "sides", "finish", "corners"] } ] } }',
    '```',
    '',
    'Branch on `error.code` (and `details[].code`), never on the message. Every response carries a `Request-Id`',
    'header; quote it when you ask for help. The same reference is served at `/api/reseller/v1/docs/errors`.',
    '',
    '## User-Agent',
    '',
    USER_AGENT_RULE,
    '',
    '## Rate limits',
    '',
    RATE_LIMIT_RULE,
    '',
    '## Codes',
    '',
    '| code | status | meaning | what to do |',
    '|---|---|---|---|',
    ...ERROR_CATALOGUE.map(
      (e) =>
        `| \`${e.code}\` | ${e.status.join(', ')} | ${cell(e.meaning)} | ${cell(e.code === '1010' ? 'Send your own User-Agent (see above).' : e.code === 'rate_limited' ? 'Wait `Retry-After` seconds, then retry (see above).' : e.action)} |`,
    ),
    '',
    '## Codes in `details`',
    '',
    'A 400 or 422 lists each problem in `error.details`: `line` (the 0-based line of an order or quote), `field`',
    '(`lines[0].options.paper`, `recipient.postalCode`), `code`, `message`, and where useful `allowedKeys`,',
    '`allowedValues`, `nearestQuantity` or `conflicts`.',
    '',
    '| code | under | meaning |',
    '|---|---|---|',
    ...DETAIL_CATALOGUE.map(
      (d) =>
        `| ${d.code
          .split(', ')
          .map((c) => `\`${c}\``)
          .join(', ')} | ${d.under.map((u) => (u.includes(' ') ? u : `\`${u}\``)).join(', ')} | ${cell(d.meaning)} |`,
    ),
    '',
  ].join('\n');
}

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** Inline Markdown of the catalogue's texts (`code` only) as HTML. */
const inline = (s: string) => escapeHtml(s).replace(/`([^`]+)`/g, '<code>$1</code>');

/** The error reference as a page (`/api/reseller/v1/docs/errors`). */
export function errorReferenceHtml(): string {
  const rows = ERROR_CATALOGUE.map(
    (e) =>
      `<tr id="${escapeHtml(e.code)}"><td><code>${escapeHtml(e.code)}</code></td><td>${e.status.join(', ')}</td><td>${inline(e.meaning)}</td><td>${inline(e.action)}</td></tr>`,
  ).join('\n');
  const details = DETAIL_CATALOGUE.map(
    (d) =>
      `<tr><td>${inline(
        d.code
          .split(', ')
          .map((c) => `\`${c}\``)
          .join(', '),
      )}</td><td>${inline(d.under.join(', '))}</td><td>${inline(d.meaning)}</td></tr>`,
  ).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Reseller Print API: error reference</title><link rel="icon" href="/favicon.ico">
<style>body{font:15px/1.45 system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.35rem .5rem;vertical-align:top;text-align:left}code{background:#f3f3f3;padding:0 .2rem}</style></head>
<body><h1>Error reference</h1>
<p>Every error has the shape <code>{"error": {"code", "message", "details"?}}</code>. Branch on <code>error.code</code>, never on the message; quote the <code>Request-Id</code> response header when you ask for help. <a href="../docs">API reference</a></p>
<h2>User-Agent</h2><p>${inline(USER_AGENT_RULE)}</p>
<h2>Rate limits</h2><p>${inline(RATE_LIMIT_RULE)}</p>
<h2>Codes</h2><table><tr><th>code</th><th>status</th><th>meaning</th><th>what to do</th></tr>
${rows}
</table>
<h2>Codes in <code>details</code></h2><table><tr><th>code</th><th>under</th><th>meaning</th></tr>
${details}
</table></body></html>`;
}
