import { ConnectorError, parseJsonPayload, type ConnectorContext, type HttpResponse } from '@print-api/connector-kit';
import { z } from 'zod';
import { TOKEN_MARGIN_MS, V10, type BolCredentials, type BolSettings } from './config.ts';

export type BolContext = ConnectorContext<BolSettings>;

const tokenSchema = z.object({
  access_token: z.string().min(1),
  token_type: z.string().refine((t) => t.toLowerCase() === 'bearer', 'is not Bearer'),
  expires_in: z.coerce.number().positive(),
  scope: z.string().optional(),
});

export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * bol's error bodies as words: a Problem (`{type, title, status, detail, violations}`) from the API, `{error,
 * error_description}` from the token endpoint, else the text itself.
 */
export function problemText(body: string): string {
  const p = safeJson(body) as
    | { title?: string; detail?: string; violations?: Array<{ name?: string; reason?: string }> }
    | { error?: string; error_description?: string }
    | undefined;
  if (p && 'title' in p && (p.title || p.detail)) {
    const violations = (p.violations ?? []).map((v) => `${v.name}: ${v.reason}`).join('; ');
    return [p.title, p.detail, violations].filter(Boolean).join(': ');
  }
  if (p && 'error' in p && p.error) return `${p.error}${p.error_description ? `: ${p.error_description}` : ''}`;
  return body.length > 300 ? `${body.slice(0, 300)}…` : body;
}

/**
 * A token for the seller's API credentials: `POST {loginUrl}/token?grant_type=client_credentials` with HTTP Basic
 * (client id and secret), no body. A 401 is the credentials refused (deleted or renewed in the seller dashboard):
 * `revoked` once the store was connected with them. Tokens live 299 s.
 */
export async function issueToken(
  ctx: BolContext,
  credentials: Pick<BolCredentials, 'clientId' | 'clientSecret'>,
  stored: boolean,
): Promise<BolCredentials> {
  const basic = Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64');
  const res = await ctx.http.request({
    method: 'POST',
    url: `${ctx.settings.loginUrl}/token?grant_type=client_credentials`,
    headers: { authorization: `Basic ${basic}`, accept: 'application/json' },
    operation: 'token',
  });
  if (res.status === 200) {
    const token = tokenSchema.safeParse(safeJson(res.body));
    if (!token.success)
      throw new ConnectorError(
        'invalid_payload',
        `bol answered a token we cannot read: ${token.error.issues.map((i) => `${i.path.join('.')} ${i.message}`)[0]}`,
      );
    if (token.data.scope && !/\bRETAILER\b/i.test(token.data.scope))
      throw new ConnectorError(
        'invalid_payload',
        `These API credentials are for bol's ${token.data.scope} API, not the Retailer API: create Retailer API credentials in the seller dashboard (Settings > API settings) and connect with those.`,
      );
    return {
      clientId: credentials.clientId,
      clientSecret: credentials.clientSecret,
      accessToken: token.data.access_token,
      accessTokenExpiresAt: new Date(ctx.clock().getTime() + token.data.expires_in * 1000).toISOString(),
    };
  }
  if (res.status === 401 || res.status === 403)
    throw new ConnectorError(
      'auth',
      stored
        ? `bol no longer accepts this store's API credentials (${res.status} ${problemText(res.body)}): they were deleted or renewed in the seller dashboard (Settings > API settings). Connect the store again with the current ones.`
        : `bol refused these API credentials (${res.status} ${problemText(res.body)}): check the client id and secret in the seller dashboard (Settings > API settings).`,
      { status: res.status, revoked: stored },
    );
  throw ConnectorError.fromStatus('bol', res.status, `token: ${problemText(res.body)}`, res.headers['retry-after']);
}

/** Whether there is no access token yet, or it has less than TOKEN_MARGIN_MS left. */
export function tokenDue(credentials: BolCredentials, now: Date): boolean {
  return !(
    credentials.accessToken &&
    credentials.accessTokenExpiresAt &&
    Date.parse(credentials.accessTokenExpiresAt) - now.getTime() > TOKEN_MARGIN_MS
  );
}

export interface BolCall {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  operation: string;
}

/**
 * One seller's Retailer and Shared API v10: every call carries the Bearer token and `Accept:
 * application/vnd.retailer.v10+json` (and that Content-Type on a body). A 401 (a token bol expired early) takes a new
 * token once; a refused one is the credentials withdrawn (thrown from issueToken). A 429 with `Retry-After` is waited
 * out by core's client; what reaches here is a rate limit to wait for.
 */
export class BolApi {
  readonly #ctx: BolContext;
  #credentials: BolCredentials;

  constructor(ctx: BolContext, credentials: BolCredentials) {
    this.#ctx = ctx;
    this.#credentials = credentials;
  }

  async #token(force = false): Promise<string> {
    if (force || tokenDue(this.#credentials, this.#ctx.clock()))
      this.#credentials = await issueToken(this.#ctx, this.#credentials, true);
    return this.#credentials.accessToken!;
  }

  async call(req: BolCall): Promise<HttpResponse> {
    const query = new URLSearchParams(
      Object.entries(req.query ?? {}).filter((e): e is [string, string] => e[1] !== undefined),
    ).toString();
    const url = `${this.#ctx.settings.apiUrl}${req.path}${query ? `?${query}` : ''}`;
    const send = async (token: string) =>
      this.#ctx.http.request({
        method: req.method,
        url,
        headers: {
          authorization: `Bearer ${token}`,
          accept: V10,
          ...(req.body !== undefined ? { 'content-type': V10 } : {}),
        },
        ...(req.body !== undefined ? { body: JSON.stringify(req.body) } : {}),
        operation: req.operation,
      });
    let res = await send(await this.#token());
    if (res.status === 401) res = await send(await this.#token(true));
    if (res.status >= 200 && res.status < 300) return res;
    if (res.status === 401 || res.status === 403)
      throw new ConnectorError(
        'auth',
        `bol refused ${req.operation} (${res.status} ${problemText(res.body)}): the API credentials lack access to the Retailer API.`,
        { status: res.status },
      );
    throw ConnectorError.fromStatus(
      'bol',
      res.status,
      `${req.operation}: ${problemText(res.body)}`,
      res.headers['retry-after'],
    );
  }

  async json<T>(schema: z.ZodType<T>, req: BolCall): Promise<T> {
    const res = await this.call(req);
    return parseJsonPayload(schema, res.body, `bol's ${req.operation} answer`);
  }
}
