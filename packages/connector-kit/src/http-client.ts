// The port a connector reaches the outside through (see HttpClient): what it sends, what it gets back.

/**
 * One part of a `multipart/form-data` body: a text field, or a file (its bytes, the name and type the platform is
 * told). Core encodes the parts with the platform's FormData (boundary and headers are its own).
 */
export type MultipartField =
  | { name: string; value: string }
  | { name: string; file: { bytes: Uint8Array; filename: string; contentType: string } };

/** An outbound HTTP call, made by core's client (timeouts, logging, metrics, test interception). */
export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /**
   * A `multipart/form-data` body instead of `body` (a file upload: Etsy's `uploadListingImage`), sent with the
   * Content-Type core's encoding gives it (any `content-type` header given is replaced). Not with `body`.
   */
  multipart?: MultipartField[];
  /**
   * Budget of the whole call in ms: the exchange and any wait for the platform's Retry-After
   * (core's default when absent).
   */
  timeoutMs?: number;
  /**
   * A short, fixed name for what the call does (`searchOrders`, `createFulfillment`), the
   * `operation` label of core's metrics for this platform. Keep the set small: never an id or
   * a URL. The method (`GET`, `POST`…) when absent.
   */
  operation?: string;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A file a merchant named by URL (a product image), to download for a platform that takes files, not URLs. */
export interface DownloadRequest {
  url: string;
  /** The largest file taken, in bytes: a bigger one fails as `invalid_payload` without being read whole. */
  maxBytes: number;
  /** The media types taken (`image/jpeg`…), as the file's bytes say: its URL and its Content-Type are not trusted. */
  accept: readonly string[];
  /** The `operation` label of the download's metrics (`download` when absent). */
  operation?: string;
  /** Budget of the whole download in ms (core's default when absent). */
  timeoutMs?: number;
}

export interface DownloadedFile {
  bytes: Uint8Array;
  /** The media type the bytes are (one of `accept`). */
  contentType: string;
  /** The URL's last path segment, ending in the extension of `contentType` (`poster.png`). */
  filename: string;
}

/**
 * The only way a connector reaches its platform: no database, no Redis, no globals (and no
 * other transport: point a platform library's at this one). Core's client calls https URLs of
 * public hosts only, checked after DNS (anything else fails as `invalid_payload` before a
 * connection is made), does not follow redirects (a 3xx is returned like any status), decodes
 * compressed bodies and fails bodies over its size limit; network failures and timeouts are
 * `upstream_unavailable`. A 429 or 503 with `Retry-After` is waited out and sent again (at
 * most twice, within the request's time budget); when the wait does not fit, the call fails as
 * `rate_limited` carrying `retryAfterMs`, so the pipeline delays the job. Every other status is
 * the connector's to judge (a 429 without Retry-After included: platforms signal their
 * limits differently). Every call is logged (method, host, path, status, duration) and counted
 * by platform, `operation` and status.
 */
export interface HttpClient {
  request(req: HttpRequest): Promise<HttpResponse>;
  /**
   * Downloads a file from a URL a merchant gave, under the same guard (https, public addresses only, on every
   * redirect it follows: a file host's redirects to its CDN are followed, each hop checked again), logged and counted
   * like `request`. Sends no credentials. Fails as `invalid_payload` with a message the merchant can act on (a
   * status other than 200, a file over `maxBytes`, bytes of a type not in `accept`); `upstream_unavailable` when
   * the host cannot be reached.
   */
  download(req: DownloadRequest): Promise<DownloadedFile>;
}
