import { CliError } from './admin-client.ts';
import { amountCents, euros } from './cli-words.ts';

/** What a command is given: its positional arguments and options, and the back-office caller. */
export interface CommandContext {
  args: string[];
  values: Record<string, string | boolean | undefined>;
  call(method: string, path: string, body?: unknown): Promise<number>;
  /** Reads an answer without printing it (for messages built from it). */
  fetchJson(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  print(value: unknown): void;
  note(line: string): void;
}

export interface Command {
  name: string;
  /** Positional arguments and options, as shown in the usage line. */
  usage: string;
  summary: string;
  /** Option lines of the command's --help (`--mode live|test   which wallet (default live)`). */
  details?: string[];
  examples?: string[];
  run(ctx: CommandContext): Promise<number>;
}

const str = (v: string | boolean | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

/** The first positional argument, or a usage error naming what is missing. */
function arg(ctx: CommandContext, what: string): string {
  const value = ctx.args[0];
  if (!value) throw new CliError(`missing ${what}`, 2);
  return encodeURIComponent(value);
}

function need(ctx: CommandContext, name: string, what = `--${name}`): string {
  const value = str(ctx.values[name]);
  if (!value) throw new CliError(`missing ${what}`, 2);
  return value;
}

/** `?a=1&b=2` from the options given (undefined ones left out), or ''. */
function queryOf(pairs: Record<string, string | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(pairs)) if (typeof v === 'string' && v !== '') q.set(k, v);
  return q.size > 0 ? `?${q}` : '';
}

const page = (ctx: CommandContext) => ({ limit: ctx.values.limit, cursor: ctx.values.cursor });

/**
 * The mode a list shows, said on stderr: live unless --mode says otherwise, which surprises
 * whoever has only made sandbox orders so far.
 */
function modeOf(ctx: CommandContext, what: string): string | undefined {
  const mode = str(ctx.values.mode);
  ctx.note(
    mode
      ? `${mode === 'test' ? 'Sandbox (test)' : 'Live'} ${what}.`
      : `Live ${what} (the default; add --mode test for the sandbox's).`,
  );
  return mode;
}
const PAGE_DETAILS = [
  '--limit N        page size, 1-100 (default 25)',
  '--cursor C       the nextCursor of the previous page',
];
const MODE_DETAIL = (what: string) => `--mode live|test ${what} (default live)`;

/** Every command of `npm run admin -- <command>`, in the order the help lists them. */
export const COMMANDS: Command[] = [
  {
    name: 'resellers',
    usage: '[--search TEXT] [--status pending|approved|suspended] [--limit N] [--cursor C]',
    summary: 'list reseller accounts, newest first',
    details: [
      '--search TEXT    an exact reseller id, or part of the name or e-mail',
      '--status S       only accounts in this status',
      ...PAGE_DETAILS,
    ],
    examples: ['npm run admin -- resellers --search acme'],
    run: (ctx) =>
      ctx.call('GET', `/resellers${queryOf({ q: ctx.values.search, status: ctx.values.status, ...page(ctx) })}`),
  },
  {
    name: 'reseller',
    usage: 'RESELLER_ID',
    summary: 'show one reseller account (also: get-reseller)',
    run: (ctx) => ctx.call('GET', `/resellers/${arg(ctx, 'RESELLER_ID')}`),
  },
  {
    name: 'create-reseller',
    usage: '--name N --email E --phone P [--discount PERCENT]',
    summary: 'create a reseller account (pending until approved)',
    examples: [
      "npm run admin -- create-reseller --name 'Acme Prints' --email ops@acme.example --phone '+31 20 123 4567'",
    ],
    run: (ctx) =>
      ctx.call('POST', '/resellers', {
        name: need(ctx, 'name'),
        email: need(ctx, 'email'),
        phone: need(ctx, 'phone'),
        discountPercent: Number(str(ctx.values.discount) ?? 0),
      }),
  },
  {
    name: 'approve',
    usage: 'RESELLER_ID',
    summary: 'approve a reseller account',
    run: (ctx) => ctx.call('POST', `/resellers/${arg(ctx, 'RESELLER_ID')}/approve`),
  },
  {
    name: 'suspend',
    usage: 'RESELLER_ID',
    summary: 'suspend a reseller account (its keys get 403)',
    run: (ctx) => ctx.call('POST', `/resellers/${arg(ctx, 'RESELLER_ID')}/suspend`),
  },
  {
    name: 'create-key',
    usage: 'RESELLER_ID --mode live|test [--scopes a:read,b:write]',
    summary: 'create an API key (the full key is shown only now)',
    details: [
      '--mode live|test prk_live_ (real orders) or prk_test_ (sandbox)',
      "--scopes LIST    comma-separated; left out: every scope; --scopes '': none (only GET /me)",
    ],
    run: (ctx) =>
      ctx.call('POST', `/resellers/${arg(ctx, 'RESELLER_ID')}/api-keys`, {
        mode: need(ctx, 'mode', '--mode live|test'),
        // Left out, the key gets every scope; given empty (--scopes ''), none.
        ...(typeof ctx.values.scopes === 'string'
          ? {
              scopes: ctx.values.scopes
                .split(',')
                .map((s) => s.trim())
                .filter((s) => s !== ''),
            }
          : {}),
      }),
  },
  {
    name: 'keys',
    usage: 'RESELLER_ID',
    summary: "list a reseller's API keys, prefixes only (also: list-keys)",
    run: (ctx) => ctx.call('GET', `/resellers/${arg(ctx, 'RESELLER_ID')}/api-keys`),
  },
  {
    name: 'revoke-key',
    usage: 'KEY_ID',
    summary: 'revoke an API key (further use gives 401)',
    run: (ctx) => ctx.call('DELETE', `/api-keys/${arg(ctx, 'KEY_ID')}`),
  },
  {
    name: 'orders',
    usage: 'RESELLER_ID [--mode live|test] [--state S] [--status S] [--external-id X] [--limit N] [--cursor C]',
    summary: "list a reseller's orders, newest first (filter by state, status, external order id)",
    details: [
      MODE_DETAIL('live orders or sandbox ones'),
      '--state S        AWAITING_FUNDS, AWAITING_FILE, PAYMENT_FAILED, SUBMITTED, CANCELLED',
      '--status S       PENDING, PAID, PROCESSING, PRINTING, SHIPPED, DELIVERED, CANCELLED, REFUNDED',
      "--external-id X  the reseller's own order id (externalOrderId)",
      ...PAGE_DETAILS,
    ],
    examples: [
      'npm run admin -- orders rsl_01J… --mode test --state AWAITING_FILE',
      'npm run admin -- orders rsl_01J… --external-id 1001',
    ],
    run: (ctx) =>
      ctx.call(
        'GET',
        `/resellers/${arg(ctx, 'RESELLER_ID')}/orders${queryOf({ mode: modeOf(ctx, 'orders'), state: ctx.values.state, status: ctx.values.status, externalOrderId: ctx.values['external-id'], ...page(ctx) })}`,
      ),
  },
  {
    name: 'order',
    usage: 'ORDER_ID',
    summary: 'show any order by id, with its reseller and mode',
    run: (ctx) => ctx.call('GET', `/orders/${arg(ctx, 'ORDER_ID')}`),
  },
  {
    name: 'wallet',
    usage: 'RESELLER_ID [--mode live|test] [--limit N] [--cursor C]',
    summary: "a reseller's wallet balance and ledger",
    details: [MODE_DETAIL('the live wallet or the sandbox one'), ...PAGE_DETAILS],
    run: (ctx) =>
      ctx.call(
        'GET',
        `/resellers/${arg(ctx, 'RESELLER_ID')}/wallet${queryOf({ mode: modeOf(ctx, 'wallet'), ...page(ctx) })}`,
      ),
  },
  {
    name: 'top-up',
    usage: 'RESELLER_ID --amount CENTS|EUROS [--reference TEXT] [--mode live|test]',
    summary: "credit a reseller's wallet; says which wallet (live or test) was credited",
    details: [
      '--amount AMOUNT  euro cents (2500 = €25.00), or euros with a decimal point (25.00 or 25,00)',
      MODE_DETAIL('the wallet to credit'),
    ],
    examples: ['npm run admin -- top-up res_01M8… --amount 12.50 --mode test'],
    run: async (ctx) => {
      const id = arg(ctx, 'RESELLER_ID');
      const cents = amountCents(need(ctx, 'amount', '--amount CENTS|EUROS'));
      const res = await ctx.fetchJson('POST', `/resellers/${id}/wallet/top-ups`, {
        amountCents: cents,
        ...(typeof ctx.values.reference === 'string' ? { reference: ctx.values.reference } : {}),
        ...(typeof ctx.values.mode === 'string' ? { mode: ctx.values.mode } : {}),
      });
      ctx.print(res.body);
      const entry = res.body?.data;
      if (res.status === 201 && entry) {
        ctx.note(
          `Credited the ${entry.mode} wallet (${entry.mode === 'test' ? 'sandbox, prk_test_ keys' : 'real orders, prk_live_ keys'}) of ${decodeURIComponent(id)} with ${euros(cents)}: balance now ${euros(entry.balanceAfterCents)}.`,
        );
      }
      return res.status < 300 ? 0 : 1;
    },
  },
  {
    name: 'save-card',
    usage: 'RESELLER_ID --token tok_visa',
    summary: "save the reseller's card from a gateway token (sandbox: tok_visa, tok_chargeDeclined)",
    run: (ctx) => ctx.call('PUT', `/resellers/${arg(ctx, 'RESELLER_ID')}/card`, { token: need(ctx, 'token') }),
  },
  {
    name: 'login-link',
    usage: 'RESELLER_ID [--mode live|test]',
    summary: "a single-use link to the reseller's dashboard, valid 5 minutes",
    details: [MODE_DETAIL('which mode the dashboard opens in')],
    run: (ctx) =>
      ctx.call(
        'POST',
        `/resellers/${arg(ctx, 'RESELLER_ID')}/dashboard-links`,
        typeof ctx.values.mode === 'string' ? { mode: ctx.values.mode } : {},
      ),
  },
  {
    name: 'webhooks',
    usage: 'RESELLER_ID [--mode live|test]',
    summary: "list a reseller's webhook endpoints",
    details: [MODE_DETAIL('live or sandbox endpoints'), ...PAGE_DETAILS],
    run: (ctx) =>
      ctx.call(
        'GET',
        `/resellers/${arg(ctx, 'RESELLER_ID')}/webhooks${queryOf({ mode: modeOf(ctx, 'webhook endpoints'), ...page(ctx) })}`,
      ),
  },
  {
    name: 'deliveries',
    usage: 'RESELLER_ID --endpoint ENDPOINT_ID [--mode live|test] [--status pending|delivered|failed|cancelled]',
    summary: "the deliveries of one of a reseller's webhook endpoints, with their attempts",
    details: [
      '--endpoint ID    the endpoint (see `webhooks`)',
      MODE_DETAIL("the endpoint's mode"),
      '--status S       only deliveries in this status',
      ...PAGE_DETAILS,
    ],
    run: (ctx) =>
      ctx.call(
        'GET',
        `/resellers/${arg(ctx, 'RESELLER_ID')}/webhooks/${encodeURIComponent(need(ctx, 'endpoint', '--endpoint ENDPOINT_ID'))}/deliveries${queryOf({ mode: modeOf(ctx, 'endpoint'), status: ctx.values.status, ...page(ctx) })}`,
      ),
  },
  {
    name: 'stores',
    usage: 'RESELLER_ID [--mode live|test]',
    summary: "list a reseller's connected stores",
    details: [MODE_DETAIL('live or sandbox stores'), ...PAGE_DETAILS],
    run: (ctx) =>
      ctx.call(
        'GET',
        `/resellers/${arg(ctx, 'RESELLER_ID')}/stores${queryOf({ mode: modeOf(ctx, 'stores'), ...page(ctx) })}`,
      ),
  },
  {
    name: 'ingests',
    usage: 'RESELLER_ID --store STORE_ID [--mode live|test] [--status S]',
    summary: "a store's ingests: every store order seen and what became of it",
    details: [
      '--store ID       the store (see `stores`)',
      MODE_DETAIL("the store's mode"),
      '--status S       received, placed, waiting_payment, no_print_lines, cancelled, failed, redacted, skipped',
      ...PAGE_DETAILS,
    ],
    run: (ctx) =>
      ctx.call(
        'GET',
        `/resellers/${arg(ctx, 'RESELLER_ID')}/stores/${encodeURIComponent(need(ctx, 'store', '--store STORE_ID'))}/ingests${queryOf({ mode: modeOf(ctx, 'store'), status: ctx.values.status, ...page(ctx) })}`,
      ),
  },
  {
    name: 'report-production',
    usage: 'ORDER_ID --status PROCESSING|PRINTING|SHIPPED|DELIVERED [--carrier C --tracking-number N --tracking-url U]',
    summary: "report the print facility's progress on an order",
    run: (ctx) =>
      ctx.call('POST', `/orders/${arg(ctx, 'ORDER_ID')}/production`, {
        status: need(ctx, 'status'),
        ...(typeof ctx.values['tracking-number'] === 'string'
          ? {
              tracking: {
                carrier: str(ctx.values.carrier) ?? '',
                trackingNumber: ctx.values['tracking-number'],
                trackingUrl: str(ctx.values['tracking-url']) ?? '',
              },
            }
          : {}),
      }),
  },
];

/** Older names kept working. */
export const ALIASES: Record<string, string> = { 'get-reseller': 'reseller', 'list-keys': 'keys' };
