import { expect } from 'chai';
import { createHmac, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { signRs256Jwt, verifyRs256Jwt } from '../src/index.ts';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

// The decoded Wix example of PLATFORMS-2.md §2.2: the JWT's `data` claim is a JSON string holding
// { data (string), instanceId, eventType, identity (string) }.
const WIX_DATA =
  '{"data":"{\\"id\\":\\"f5a1c9e2-0000-4000-8000-00000000abcd\\",\\"entityFqdn\\":\\"wix.ecom.v1.order\\",\\"slug\\":\\"approved\\",\\"entityId\\":\\"a1b2c3d4-1111-4222-8333-444455556666\\",\\"eventTime\\":\\"2026-01-01T10:00:05.123Z\\",\\"triggeredByAnonymizeRequest\\":false,\\"actionEvent\\":{\\"body\\":{\\"order\\":{\\"id\\":\\"a1b2c3d4-1111-4222-8333-444455556666\\",\\"number\\":\\"10042\\",\\"status\\":\\"APPROVED\\",\\"paymentStatus\\":\\"PAID\\"}}}}","instanceId":"6f2b5e2a-0000-4000-8000-0000000000aa","eventType":"wix.ecom.v1.order_approved","identity":"{\\"identityType\\":\\"APP\\"}"}';
const ISSUED = 1767261605; // 2026-01-01T10:00:05Z

describe('connector kit: RS256 JWT (Wix webhook bodies)', () => {
  let publicKeyPem: string;
  let privateKeyPem: string;
  let otherPrivate: KeyObject;
  const now = new Date(ISSUED * 1000 + 2000);

  before(() => {
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    publicKeyPem = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    privateKeyPem = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    otherPrivate = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  });

  it('verifies a Wix-shaped body and hands back the claims, whose nested JSON strings parse', async () => {
    const token = signRs256Jwt({ data: WIX_DATA, iat: ISSUED, exp: ISSUED + 3600 }, privateKeyPem, { kid: 'wix-key' });
    const verdict = await verifyRs256Jwt(token, publicKeyPem, { now });
    if (!verdict.ok) expect.fail(verdict.reason);
    expect(verdict.header).to.deep.equal({ kid: 'wix-key', alg: 'RS256', typ: 'JWT' });
    const envelope = JSON.parse(String(verdict.payload.data)) as {
      eventType: string;
      instanceId: string;
      data: string;
    };
    expect(envelope).to.include({
      eventType: 'wix.ecom.v1.order_approved',
      instanceId: '6f2b5e2a-0000-4000-8000-0000000000aa',
    });
    expect(
      (JSON.parse(envelope.data) as { actionEvent: { body: { order: { paymentStatus: string } } } }).actionEvent.body
        .order.paymentStatus,
    ).to.equal('PAID');
  });

  it('verifies without exp/iat (optional claims), and against a KeyObject', async () => {
    const token = signRs256Jwt({ data: WIX_DATA }, privateKeyPem);
    expect((await verifyRs256Jwt(token, publicKeyPem, { now })).ok).to.equal(true);
    expect((await verifyRs256Jwt(token, createPublicKey(publicKeyPem), { now })).ok).to.equal(true);
  });

  it('refuses a changed payload, another key’s signature, and a truncated token', async () => {
    const token = signRs256Jwt({ data: WIX_DATA, iat: ISSUED }, privateKeyPem);
    const [h, , s] = token.split('.');
    const tampered = `${h}.${b64({ data: WIX_DATA.replace('PAID', 'NOT_PAID'), iat: ISSUED })}.${s}`;
    expect(await verifyRs256Jwt(tampered, publicKeyPem, { now })).to.deep.equal({
      ok: false,
      reason: 'the JWT signature does not verify',
    });
    expect((await verifyRs256Jwt(signRs256Jwt({ data: WIX_DATA }, otherPrivate), publicKeyPem, { now })).ok).to.equal(
      false,
    );
    expect(await verifyRs256Jwt(token.split('.').slice(0, 2).join('.'), publicKeyPem, { now })).to.deep.equal({
      ok: false,
      reason: 'not a JWT (three base64url parts)',
    });
    expect((await verifyRs256Jwt(`${token}\n`, publicKeyPem, { now })).ok).to.equal(false);
  });

  it('refuses alg none, and HS256 keyed with the public key (algorithm confusion), before using the key', async () => {
    const payload = b64({ data: WIX_DATA });
    expect(await verifyRs256Jwt(`${b64({ alg: 'none' })}.${payload}.AA`, publicKeyPem, { now })).to.deep.equal({
      ok: false,
      reason: 'the JWT is signed with "none", not RS256',
    });
    const header = b64({ alg: 'HS256', typ: 'JWT' });
    const forged = `${header}.${payload}.${createHmac('sha256', publicKeyPem).update(`${header}.${payload}`).digest('base64url')}`;
    expect(await verifyRs256Jwt(forged, publicKeyPem, { now })).to.deep.equal({
      ok: false,
      reason: 'the JWT is signed with "HS256", not RS256',
    });
  });

  it('checks exp, nbf and iat with a minute of leeway', async () => {
    const token = (claims: Record<string, unknown>) => signRs256Jwt({ data: WIX_DATA, ...claims }, privateKeyPem);
    const t = now.getTime() / 1000;
    expect((await verifyRs256Jwt(token({ exp: t - 30 }), publicKeyPem, { now })).ok).to.equal(true);
    expect(await verifyRs256Jwt(token({ exp: t - 61 }), publicKeyPem, { now })).to.include({ ok: false });
    expect((await verifyRs256Jwt(token({ exp: t - 61 }), publicKeyPem, { now, clockToleranceMs: 0 })).ok).to.equal(
      false,
    );
    expect((await verifyRs256Jwt(token({ nbf: t + 120 }), publicKeyPem, { now })).ok).to.equal(false);
    expect((await verifyRs256Jwt(token({ iat: t + 120 }), publicKeyPem, { now })).ok).to.equal(false);
    expect((await verifyRs256Jwt(token({ iat: t + 30 }), publicKeyPem, { now })).ok).to.equal(true);
    expect(await verifyRs256Jwt(token({ exp: 'tomorrow' }), publicKeyPem, { now })).to.deep.equal({
      ok: false,
      reason: 'the JWT has an exp, nbf or iat that is not a number',
    });
  });

  it('checks issuer and audience when asked', async () => {
    const token = signRs256Jwt({ data: WIX_DATA, iss: 'wix.com', aud: ['app-1', 'app-2'] }, privateKeyPem);
    expect((await verifyRs256Jwt(token, publicKeyPem, { now, issuer: 'wix.com', audience: 'app-2' })).ok).to.equal(
      true,
    );
    expect((await verifyRs256Jwt(token, publicKeyPem, { now, issuer: 'evil.example' })).ok).to.equal(false);
    expect((await verifyRs256Jwt(token, publicKeyPem, { now, audience: 'app-3' })).ok).to.equal(false);
  });

  it('refuses a key that is not an RSA public key, without throwing', async () => {
    const token = signRs256Jwt({ data: WIX_DATA }, privateKeyPem);
    expect((await verifyRs256Jwt(token, 'not a PEM', { now })).ok).to.equal(false);
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
    expect(await verifyRs256Jwt(token, ec, { now })).to.deep.equal({
      ok: false,
      reason: 'the public key is not an RSA key',
    });
  });
});
