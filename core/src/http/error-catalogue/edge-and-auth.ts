import type { ErrorEntry } from '../error-catalogue.ts';
import { RATE_LIMIT_RULE, USER_AGENT_RULE } from './rules.ts';

/** The codes answered before an operation runs: the edge (User-Agent, body, route), authentication, scopes and limits. */
export const EDGE_AND_AUTH: ErrorEntry[] = [
  // Edge: before the API
  {
    code: '1010',
    status: [403],
    meaning: 'The User-Agent is missing or a generic library default; refused at the edge (the CDN) before the API.',
    action: USER_AGENT_RULE,
    example:
      "Access denied: the User-Agent 'python-requests/2.32' is a generic library default. Send your own User-Agent identifying your integration.",
  },
  {
    code: 'invalid_request',
    status: [400],
    meaning:
      'The request is malformed: a body, query, path parameter or header that does not match the operation (each problem in `details`), a missing `Idempotency-Key` on POST /orders, a `%00` or an unpaired surrogate in the text, a body nested too deep.',
    action:
      'Fix the fields `details` names (`field`, `code`, `message`); the OpenAPI description gives every field with its limits.',
    example: 'The request body is invalid: recipient.postalCode is required',
  },
  {
    code: 'payload_too_large',
    status: [413],
    meaning: 'The request body is larger than 1 MB (after decoding).',
    action: 'Send less per request: at most 100 lines per order, one order per request.',
    example: 'The request body is larger than 1mb.',
  },
  {
    code: 'unsupported_media_type',
    status: [415],
    meaning: 'The body is not JSON, not UTF-8, or uses a `Content-Encoding` other than gzip, deflate or br.',
    action: 'Send `Content-Type: application/json` with a UTF-8 body, as it is or gzip/deflate/br encoded.',
    example: "Send the request body as JSON with 'Content-Type: application/json'.",
  },
  {
    code: 'route_not_found',
    status: [404],
    meaning: 'No operation has this method and path.',
    action: 'Check the path against the OpenAPI description (the base path is `/api/reseller/v1`).',
    example: 'There is no route GET /api/reseller/v1/order.',
  },
  // Authentication and limits
  {
    code: 'unauthorized',
    status: [401],
    meaning: 'The API key is missing, malformed, unknown or revoked.',
    action:
      'Send `Authorization: Bearer prk_live_…` or `prk_test_…`; a revoked key never works again: create a new one.',
    example: 'Missing or invalid API key.',
  },
  {
    code: 'account_not_active',
    status: [403],
    meaning: 'The reseller account is not approved yet, or suspended.',
    action:
      'Wait for approval (or ask the operator why the account is suspended); keys start working once it is approved.',
    example: 'The reseller account is suspended; the API is available to approved accounts only.',
  },
  {
    code: 'account_not_approved',
    status: [403],
    meaning: 'Back-office: an API key was requested for an account that is not approved.',
    action: 'Approve the reseller first.',
    example:
      'Reseller rsl_01M89QQRWZ588G0KAKGPKCGYWB is pending; only an approved reseller account can create API keys.',
  },
  {
    code: 'insufficient_scope',
    status: [403],
    meaning: 'The key lacks the scope the operation needs (named in the message and in the operation’s `x-scope`).',
    action: 'Use a key with that scope, or create one without `--scopes` (every scope).',
    example: "This API key lacks the scope 'orders:write' required by POST /orders.",
  },
  {
    code: 'insufficient_role',
    status: [403],
    meaning:
      "The back-office caller's role (viewer, support or admin: from single sign-on, or the operator token's) is below what the operation needs. Viewers read; support runs operations (retries, syncs, redeliveries, dashboard links); admin changes accounts, money and credentials.",
    action: 'Ask an admin for a role or an operator token that allows it.',
    example: "POST /admin/v1/resellers/{id}/approve needs the role 'admin'; viewer@print.example has 'viewer'.",
  },
  {
    code: 'csrf_failed',
    status: [403],
    meaning:
      "A state-changing request of a browser session (the reseller dashboard, the operators' console) came from another site, or without its session's CSRF token. API keys and the admin Bearer token are never asked for one.",
    action:
      'Reload the page and submit the form again; a script should use its API key (or the admin token) instead of a browser session.',
    example: 'The form is missing its CSRF token or it is stale: reload the page and try again.',
  },
  {
    code: 'too_many_failures',
    status: [429],
    meaning:
      'Too many wrong API keys or admin tokens from this client address: its wrong ones are refused for a while. A right key is never held up.',
    action: 'Check the key (a revoked key stays refused); after `Retry-After` seconds wrong ones are heard again.',
    example:
      'Too many wrong keys from this address: a wrong one is refused for 840 more seconds (a right one still works).',
  },
  {
    code: 'rate_limited',
    status: [429],
    meaning: 'More requests than the key’s per-minute limit.',
    action: RATE_LIMIT_RULE,
    example: 'Too many requests: at most 120 per minute per API key. Retry after 42 seconds.',
  },
  {
    code: 'not_found',
    status: [404],
    meaning:
      'The product, order, order line, reseller product, webhook endpoint, delivery, store, link or sample file does not exist, or belongs to another account or mode (a `prk_test_` key sees only test data).',
    action: 'Check the id and that the key’s mode matches the one that created it.',
    example: "There is no order 'ord_01M89QQS8PF0R454XXXZVC09H9'.",
  },
  {
    code: 'internal_error',
    status: [500],
    meaning: 'A fault on the service’s side; nothing you sent was wrong.',
    action:
      'Retry later (POST /orders safely, with the same Idempotency-Key); quote the `Request-Id` header if it persists.',
    example: 'Something went wrong on our side. Quote request id 01M89QQS8PF0R454XXXZVC09H9 if you contact support.',
  },
  {
    code: 'service_unavailable',
    status: [503],
    meaning: 'A dependency (the database or Redis) is unreachable for a moment.',
    action: 'Retry after `Retry-After` seconds; with the same Idempotency-Key an order is never placed twice.',
    example: 'The service is briefly unable to complete this request (database unreachable). Retry after 2 seconds.',
  },
];
