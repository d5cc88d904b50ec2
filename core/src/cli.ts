import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from './config.ts';

/**
 * `npm run admin -- <command>`: the back-office operations from a terminal. It calls the
 * back-office HTTP API of a running service (PUBLIC_URL or http://HOST:PORT), with ADMIN_TOKEN
 * or the token generated into DATA_DIR.
 */
const USAGE = `usage: npm run admin -- <command> [options]

  create-reseller --name N --email E --phone P [--discount PERCENT]
  get-reseller ID
  approve ID | suspend ID
  create-key ID --mode live|test [--scopes a:read,b:write]   (no --scopes: every scope; --scopes '': none, only GET /me)
  list-keys ID
  revoke-key KEY_ID
  top-up ID --amount CENTS [--reference TEXT] [--mode live|test]
  save-card ID --token tok_visa
  login-link ID [--mode live|test]   (a single-use link to the reseller's dashboard, valid 5 minutes; live unless --mode test)
  report-production ORDER_ID --status PROCESSING|PRINTING|SHIPPED|DELIVERED [--carrier C --tracking-number N --tracking-url U]
`;

function adminToken(config: ReturnType<typeof loadConfig>): string {
  if (config.ADMIN_TOKEN) return config.ADMIN_TOKEN;
  try {
    return (JSON.parse(readFileSync(path.resolve(config.DATA_DIR, 'secrets.json'), 'utf8')) as { adminToken: string }).adminToken;
  } catch {
    throw new Error('No ADMIN_TOKEN set and no generated token in DATA_DIR: start the service once or set ADMIN_TOKEN.');
  }
}

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      email: { type: 'string' },
      phone: { type: 'string' },
      discount: { type: 'string' },
      mode: { type: 'string' },
      scopes: { type: 'string' },
      amount: { type: 'string' },
      reference: { type: 'string' },
      token: { type: 'string' },
      status: { type: 'string' },
      carrier: { type: 'string' },
      'tracking-number': { type: 'string' },
      'tracking-url': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, id] = positionals;
  if (!command || values.help) {
    process.stdout.write(USAGE);
    return command ? 0 : 2;
  }
  const config = loadConfig();
  const base = `${config.PUBLIC_URL ?? `http://${config.HOST}:${config.PORT}`}/admin/v1`;
  const call = async (method: string, p: string, body?: unknown): Promise<number> => {
    const res = await fetch(`${base}${p}`, {
      method,
      headers: { authorization: `Bearer ${adminToken(config)}`, 'user-agent': 'print-api-admin-cli/1.0', ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    process.stdout.write(`${JSON.stringify(await res.json(), null, 2)}\n`);
    return res.ok ? 0 : 1;
  };
  const need = (v: string | undefined, what: string): string => {
    if (!v) throw new Error(`${command} needs ${what}\n\n${USAGE}`);
    return v;
  };
  switch (command) {
    case 'create-reseller':
      return call('POST', '/resellers', {
        name: need(values.name, '--name'),
        email: need(values.email, '--email'),
        phone: need(values.phone, '--phone'),
        discountPercent: Number(values.discount ?? 0),
      });
    case 'get-reseller':
      return call('GET', `/resellers/${need(id, 'a reseller id')}`);
    case 'approve':
    case 'suspend':
      return call('POST', `/resellers/${need(id, 'a reseller id')}/${command}`);
    case 'create-key':
      return call('POST', `/resellers/${need(id, 'a reseller id')}/api-keys`, {
        mode: need(values.mode, '--mode live|test'),
        // Left out, the key gets every scope; given empty (--scopes ''), none.
        ...(values.scopes !== undefined ? { scopes: values.scopes.split(',').map((s) => s.trim()).filter((s) => s !== '') } : {}),
      });
    case 'list-keys':
      return call('GET', `/resellers/${need(id, 'a reseller id')}/api-keys`);
    case 'revoke-key':
      return call('DELETE', `/api-keys/${need(id, 'a key id')}`);
    case 'top-up':
      return call('POST', `/resellers/${need(id, 'a reseller id')}/wallet/top-ups`, {
        amountCents: Number(need(values.amount, '--amount CENTS')),
        ...(values.reference ? { reference: values.reference } : {}),
        ...(values.mode ? { mode: values.mode } : {}),
      });
    case 'save-card':
      return call('PUT', `/resellers/${need(id, 'a reseller id')}/card`, { token: need(values.token, '--token') });
    case 'login-link':
      return call('POST', `/resellers/${need(id, 'a reseller id')}/dashboard-links`, values.mode ? { mode: values.mode } : {});
    case 'report-production':
      return call('POST', `/orders/${need(id, 'an order id')}/production`, {
        status: need(values.status, '--status'),
        ...(values['tracking-number']
          ? { tracking: { carrier: values.carrier ?? '', trackingNumber: values['tracking-number'], trackingUrl: values['tracking-url'] ?? '' } }
          : {}),
      });
    default:
      process.stderr.write(`unknown command '${command}'\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: Error) => {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  },
);
