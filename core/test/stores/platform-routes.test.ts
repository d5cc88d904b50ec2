import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { API_BASE } from '../../src/http/app.ts';
import { entryPointsOf } from '../../src/http/entry-points.ts';
import type { AnyRoute } from '../../src/web/route.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const REFERENCE_CONNECTOR = fileURLToPath(new URL('../../../test/reference-connector', import.meta.url));

interface Branch {
  title: string;
  properties: Record<string, { const?: string }>;
  required: string[];
}

/**
 * The platforms are whatever connectors are loaded: the bodies of POST /stores and POST
 * /stores/credential-requests, their OpenAPI description and the order sources follow them.
 */
describe('platforms from the loaded connectors [pglite]', function () {
  let t: TestService;
  let key: string;
  let doc: any;

  before(async function () {
    t = await startTestService(this, 'pglite', { CONNECTORS: `shopify,woocommerce,${REFERENCE_CONNECTOR}` });
    key = (await t.reseller()).key;
    doc = (await t.api(undefined, 'GET', '/openapi.json')).body;
  });
  after(async () => {
    await t?.close();
  });

  /** A union's branches, each a named component (`$ref`) or inline. */
  const branchesOf = (schema: { oneOf: Array<Branch | { $ref: string }> }): Branch[] =>
    schema.oneOf.map((b) =>
      '$ref' in b ? (doc.components.schemas[b.$ref.replace('#/components/schemas/', '')] as Branch) : b,
    );
  const route = (method: string, path: string) =>
    entryPointsOf(t.service.app)
      .routes(API_BASE)
      .find((r) => r.method === method && r.path === path)!;

  it("documents POST /stores as a union on platform: each loaded platform's fields, with an example each that the route accepts", async () => {
    const content = doc.paths['/stores'].post.requestBody.content['application/json'];
    expect(content.schema.discriminator).to.deep.equal({ propertyName: 'platform' });
    const branches = branchesOf(content.schema);
    expect(branches.map((b) => b.title)).to.deep.equal(['SHOPIFY', 'WOOCOMMERCE', 'REFERENCE']);
    const reference = branches.find((b) => b.title === 'REFERENCE')!;
    expect(reference.properties.platform).to.deep.include({ const: 'REFERENCE' });
    expect(reference.required).to.include.members(['platform', 'shopUrl', 'token']);
    expect(branches.find((b) => b.title === 'SHOPIFY')!.required).to.include.members(['shop', 'accessToken']);
    expect(Object.keys(content.examples)).to.deep.equal(['SHOPIFY', 'WOOCOMMERCE', 'REFERENCE']);
    for (const [platform, example] of Object.entries(
      content.examples as Record<string, { value: { platform: string } }>,
    )) {
      expect(example.value.platform).to.equal(platform);
      const parsed = route('post', '/stores').body!.safeParse(example.value);
      expect(parsed.success, `${platform}: ${JSON.stringify(parsed.error?.issues)}`).to.equal(true);
    }
  });

  it('documents POST /stores/credential-requests for the platforms with a key-issuing flow only', async () => {
    const content = doc.paths['/stores/credential-requests'].post.requestBody.content['application/json'];
    expect(branchesOf(content.schema).map((b) => b.title)).to.deep.equal(['WOOCOMMERCE']);
    expect(
      route('post', '/stores/credential-requests').body!.safeParse(content.examples.WOOCOMMERCE.value).success,
    ).to.equal(true);
  });

  it('answers an unknown platform with 400, naming the platforms it takes', async () => {
    const res = await t.api(key, 'POST', '/stores', { platform: 'WIX', siteId: 'x' });
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('invalid_request');
    expect(res.body.error.details[0]).to.deep.include({
      field: 'platform',
      allowedValues: ['SHOPIFY', 'WOOCOMMERCE', 'REFERENCE'],
    });
    const request = await t.api(key, 'POST', '/stores/credential-requests', {
      platform: 'SHOPIFY',
      shop: 'tulip-prints',
    });
    expect(request.status).to.equal(400);
    expect(request.body.error.details[0]).to.deep.include({ field: 'platform', allowedValues: ['WOOCOMMERCE'] });
  });

  it("checks a platform's own fields before calling its connector", async () => {
    const res = await t.api(key, 'POST', '/stores', {
      platform: 'REFERENCE',
      shopUrl: 'http://ref-shop.example',
      token: 'tok',
    });
    expect(res.status).to.equal(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).to.deep.equal(['shopUrl']);
  });

  it("lists the loaded platforms among the order sources, and keeps the spec's", async () => {
    const source = (doc.paths['/orders'].get.parameters as Array<{ name: string; schema: { enum: string[] } }>).find(
      (p) => p.name === 'source',
    )!;
    expect(source.schema.enum).to.include.members([
      'API',
      'DASHBOARD',
      'SHOPIFY',
      'WOOCOMMERCE',
      'ETSY',
      'WIX',
      'TIKTOK_SHOP',
      'AMAZON',
      'REFERENCE',
    ]);
    expect((await t.api(key, 'GET', '/orders?source=REFERENCE')).status).to.equal(200);
    expect((await t.api(key, 'GET', '/orders?source=AMAZON')).status).to.equal(200);
    const unknown = await t.api(key, 'GET', '/orders?source=NOPE');
    expect(unknown.status).to.equal(400);
    expect(unknown.body.error.details[0].allowedValues).to.include('REFERENCE');
  });
});
