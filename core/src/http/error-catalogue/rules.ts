// The two rules every client meets before the API: named in the error reference, the API description and the codes
// `1010` and `rate_limited`.

export const USER_AGENT_RULE =
  'Send a `User-Agent` header of your own that names your integration (`my-shop/1.4 (+https://my-shop.example)`). Requests without one, or with a generic library default (`python-requests`, `Python-urllib`, `Go-http-client`, `Java/`, `libwww-perl`, `okhttp`, and whatever the operator adds in `BLOCKED_USER_AGENTS`), are refused with 403 and code `1010` before they reach the API: the refusal the CDN in front of the production API gives, reproduced by the service so a sandbox behaves the same. Such defaults are what scrapers and leaked scripts send; a named client can be told apart and contacted.';

export const RATE_LIMIT_RULE =
  'At most `RATE_LIMIT_PER_MINUTE` requests per API key per minute (120 unless the operator changes it), counted over a fixed minute window. Every keyed response carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (seconds until the window resets); above the limit the answer is 429 `rate_limited` with `Retry-After` in seconds. Wait that long and retry (the SDK does this for you). Pages are at most 100 items, so listing is cheap in requests.';
