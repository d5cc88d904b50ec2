import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { defineConnector, settingVariable, type Connector } from '@print-api/connector-kit';
import { ConfigError, connectorEnv } from '../../src/config.ts';
import { configureConnectors, loadConnectors } from '../../src/modules/stores/connector-registry.ts';

const REFERENCE_CONNECTOR = fileURLToPath(new URL('../../../test/reference-connector', import.meta.url));

/** A connector with one required secret, a number and an origin with its real default. */
const acme = defineConnector<{ token: string }, { appSecret: string; pageSize: number; apiUrl: string }>({
  manifest: {
    platform: 'ACME_SHOP',
    displayName: 'Acme Shop',
    settingsSchema: z.object({
      appSecret: z.string().min(8),
      pageSize: z.coerce.number().int().min(1).max(100).default(50),
      apiUrl: z.url({ protocol: /^https$/ }).default('https://api.acme.example'),
    }),
    connectSchema: z.strictObject({ token: z.string() }),
    examples: { connect: { token: 't' } },
    credentialsSchema: z.object({ token: z.string() }),
    capabilities: { webhooks: false, polling: false, fulfilment: false, oauth: false },
    rateLimit: { max: 1, durationMs: 1000 },
  },
  connect: async () => ({ externalId: 'x', name: 'x', credentials: { token: 't' } }),
  verifyWebhook: () => ({ ok: false, reason: 'none' }),
  parseWebhook: async () => ({ kind: 'ignored', reason: 'none' }),
});

function recordingLogger() {
  const warnings: string[] = [];
  const infos: Array<{ message: string; meta?: Record<string, unknown> }> = [];
  return {
    warnings,
    infos,
    logger: {
      info: (message: string, meta?: Record<string, unknown>) =>
        void infos.push({ message, ...(meta ? { meta } : {}) }),
      warn: (m: string) => void warnings.push(m),
      error: () => undefined,
    },
  };
}

const configure = (
  env: Record<string, string>,
  opts: { named?: boolean; connectors?: Array<Connector<any, any>> } = {},
) => {
  const { warnings, infos, logger } = recordingLogger();
  const registry = configureConnectors({
    connectors: opts.connectors ?? [acme],
    env: (platform) => connectorEnv(platform, env),
    logger,
    named: opts.named ?? true,
  });
  return { registry, warnings, infos };
};

describe('connector settings from CONNECTOR_<PLATFORM>_<NAME>', () => {
  it('names a setting in upper snake case after its platform', () => {
    expect(settingVariable('SHOPIFY', 'apiKey')).to.equal('CONNECTOR_SHOPIFY_API_KEY');
    expect(settingVariable('TIKTOK_SHOP', 'authUrl')).to.equal('CONNECTOR_TIKTOK_SHOP_AUTH_URL');
    expect(settingVariable('AMAZON', 'lwaUrl')).to.equal('CONNECTOR_AMAZON_LWA_URL');
  });

  it("reads only the platform's own variables, empty ones left out", () => {
    const env = {
      CONNECTOR_ACME_SHOP_APP_SECRET: 's3cret-value',
      CONNECTOR_ACME_SHOP_PAGE_SIZE: '',
      CONNECTOR_SHOPIFY_API_KEY: 'k',
      PORT: '1',
    };
    expect(connectorEnv('ACME_SHOP', env)).to.deep.equal({ APP_SECRET: 's3cret-value' });
  });

  it('hands the connector its settings parsed, typed and with their defaults', () => {
    const { registry } = configure({
      CONNECTOR_ACME_SHOP_APP_SECRET: 's3cret-value',
      CONNECTOR_ACME_SHOP_PAGE_SIZE: '20',
    });
    expect(registry.settings('ACME_SHOP')).to.deep.equal({
      appSecret: 's3cret-value',
      pageSize: 20,
      apiUrl: 'https://api.acme.example',
    });
    // An origin can be pointed at a sandbox or a local fake.
    const sandbox = configure({
      CONNECTOR_ACME_SHOP_APP_SECRET: 's3cret-value',
      CONNECTOR_ACME_SHOP_API_URL: 'https://localhost:8443',
    }).registry;
    expect(sandbox.settings('ACME_SHOP')).to.include({ apiUrl: 'https://localhost:8443' });
  });

  it('stops start-up on a wrong value, naming each variable at fault', () => {
    const wrong = () =>
      configure(
        {
          CONNECTOR_ACME_SHOP_APP_SECRET: 'short',
          CONNECTOR_ACME_SHOP_PAGE_SIZE: 'many',
          CONNECTOR_ACME_SHOP_API_URL: 'http://api.acme.example',
        },
        { named: false },
      );
    expect(wrong).to.throw(ConfigError, /^ {2}CONNECTOR_ACME_SHOP_APP_SECRET /m);
    expect(wrong).to.throw(ConfigError, /^ {2}CONNECTOR_ACME_SHOP_PAGE_SIZE /m);
    expect(wrong).to.throw(ConfigError, /^ {2}CONNECTOR_ACME_SHOP_API_URL /m);
  });

  it('stops start-up when a connector asked for by name lacks a required setting', () => {
    expect(() => configure({}, { named: true })).to.throw(
      ConfigError,
      /CONNECTOR_ACME_SHOP_APP_SECRET is required: the Acme Shop connector needs/,
    );
  });

  it('leaves out a connector found installed whose required setting is not set: one info line for all of them, the variables in its fields', () => {
    const other = defineConnector({
      ...acme,
      manifest: { ...acme.manifest, platform: 'OTHER_SHOP', displayName: 'Other Shop' },
    });
    const { registry, warnings, infos } = configure({}, { named: false, connectors: [acme, other] });
    expect(registry.platforms()).to.deep.equal([]);
    expect(warnings).to.deep.equal([]);
    expect(infos).to.have.length(2);
    expect(infos[0]!.message).to.equal('Connectors not configured, not offered: Acme Shop, Other Shop');
    expect(infos[0]!.meta).to.deep.equal({
      missing: { ACME_SHOP: ['CONNECTOR_ACME_SHOP_APP_SECRET'], OTHER_SHOP: ['CONNECTOR_OTHER_SHOP_APP_SECRET'] },
    });
    // The one list of platforms, said at start-up (the same the console and the filters offer).
    expect(infos[1]).to.deep.equal({ message: 'Store platforms: none', meta: { platforms: [] } });
  });

  it("says the store platforms it offers at start-up: the registry's one list", () => {
    const { registry, infos } = configure({ CONNECTOR_ACME_SHOP_APP_SECRET: 's3cret-value' });
    expect(registry.platforms()).to.deep.equal(['ACME_SHOP']);
    expect(infos.at(-1)).to.deep.equal({ message: 'Store platforms: ACME_SHOP', meta: { platforms: ['ACME_SHOP'] } });
  });

  it('warns about a variable with the prefix that names no setting (a typo)', () => {
    const { registry, warnings } = configure({
      CONNECTOR_ACME_SHOP_APP_SECRET: 's3cret-value',
      CONNECTOR_ACME_SHOP_APPSECRET: 'typo',
    });
    expect(registry.platforms()).to.deep.equal(['ACME_SHOP']);
    expect(warnings.join('\n')).to.contain('CONNECTOR_ACME_SHOP_APPSECRET is not a setting of the Acme Shop connector');
  });

  it("refuses a connector named after one of the API's own sources", () => {
    const api = defineConnector({ ...acme, manifest: { ...acme.manifest, platform: 'API' } });
    expect(() => configure({ CONNECTOR_API_APP_SECRET: 's3cret-value' }, { connectors: [api] })).to.throw(
      /one of the API's own order sources/,
    );
  });

  it('refuses a platform or a setting named out of convention when the connector is defined', () => {
    expect(() => defineConnector({ ...acme, manifest: { ...acme.manifest, platform: 'acme-shop' } })).to.throw(
      /upper snake case/,
    );
    expect(() =>
      defineConnector<{ token: string }, any>({
        ...acme,
        manifest: { ...acme.manifest, settingsSchema: z.object({ API_KEY: z.string() }) },
      }),
    ).to.throw(/camelCase/);
  });

  it("refuses an endpoint of the connector's own named like core's paths or out of convention", () => {
    const answer = async () => ({ ok: true as const });
    expect(() => defineConnector({ ...acme, endpoints: { webhooks: { answer } } })).to.throw(/endpoint 'webhooks'/);
    expect(() => defineConnector({ ...acme, endpoints: { Deletion: { answer } } })).to.throw(/lower case/);
    expect(() => defineConnector({ ...acme, endpoints: { 'account-deletion': { answer } } })).not.to.throw();
  });
});

describe('loading connectors (CONNECTORS)', () => {
  const platforms = (connectors: Array<Connector<any, any>>) => connectors.map((c) => c.manifest.platform);

  it('all: every installed @print-api/connector-* package, never the test reference connector', async () => {
    const all = platforms(await loadConnectors('all'));
    expect(all).to.include.members(['SHOPIFY', 'WOOCOMMERCE']);
    expect(all).not.to.include('REFERENCE');
  });

  it('by slug, by package name and by path to a package folder', async () => {
    expect(
      platforms(await loadConnectors(`woocommerce, @print-api/connector-shopify, ${REFERENCE_CONNECTOR}`)),
    ).to.deep.equal(['WOOCOMMERCE', 'SHOPIFY', 'REFERENCE']);
  });

  it('stops start-up on an entry that cannot be loaded, naming CONNECTORS', async () => {
    for (const entry of ['nosuchplatform', './no/such/folder', '@acme/not-installed']) {
      const err = await loadConnectors(`shopify,${entry}`).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, entry).to.be.instanceOf(ConfigError);
      expect((err as Error).message).to.contain(`CONNECTORS names '${entry}'`);
    }
  });
});
