import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { issueSentence } from '../../src/web/plain-issues.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

/** Every issue of `input` against `schema`, as the API words it. */
function sentences(schema: z.ZodType, input: unknown): string[] {
  const parsed = schema.safeParse(input);
  if (parsed.success) return [];
  return parsed.error.issues.map((i) => issueSentence(i.path.map(String).join('.'), i));
}

describe("zod's issues in plain English", () => {
  it('says a missing field is required, and what a wrong one must be', () => {
    const schema = z.object({
      name: z.string(),
      postalCode: z.string().min(1),
      code: z.string().min(3).max(5),
      quantity: z.number().int().min(1).max(10),
      country: z.enum(['NL', 'BE']),
      email: z.email(),
      url: z.url(),
      lines: z.array(z.string()).min(1),
      flags: z.strictObject({}),
    });
    expect(
      sentences(schema, {
        postalCode: '',
        code: 'ab',
        quantity: 11,
        country: 'DE',
        email: 'no',
        url: 'no',
        lines: [],
        flags: { x: 1 },
      }),
    ).to.deep.equal([
      'name is required',
      'postalCode must not be empty',
      'code must have at least 3 characters',
      'quantity must be at most 10',
      'country must be one of "NL" or "BE"',
      'email must be an e-mail address',
      'url must be a URL',
      'lines must have at least one item',
      'flags has a field it does not take: x',
    ]);
    expect(sentences(schema.pick({ quantity: true }), { quantity: 'two' })).to.deep.equal([
      'quantity must be a number',
    ]);
    expect(sentences(schema.pick({ quantity: true }), { quantity: 1.5 })).to.deep.equal([
      'quantity must be a whole number',
    ]);
  });

  it("keeps a schema's own message", () => {
    expect(
      sentences(z.object({ phone: z.string().regex(/^\+?\d+$/, 'must be a phone number such as +31 20 123 4567') }), {
        phone: 'x',
      }),
    ).to.deep.equal(['phone must be a phone number such as +31 20 123 4567']);
    expect(
      sentences(
        z.object({ a: z.string() }).refine(() => false, 'give exactly one of a and b'),
        { a: 'x' },
      ),
    ).to.deep.equal(['give exactly one of a and b']);
  });
});

describe('the API words a missing field as required [pglite]', function () {
  let t: TestService;
  before(async function () {
    t = await startTestService(this, 'pglite');
  });
  after(async () => t?.close());

  it('answers an order without recipient.postalCode: "recipient.postalCode is required"', async () => {
    const { key } = await t.reseller({ mode: 'test' });
    const res = await t.api(
      key,
      'POST',
      '/orders',
      {
        lines: [{ productId: 'business-cards', quantity: 250 }],
        recipient: { name: 'Jan de Vries', address1: 'Keizersgracht 1', city: 'Amsterdam', country: 'NL' },
      },
      { 'idempotency-key': randomUUID() },
    );
    expect(res.status).to.equal(400);
    expect(res.body.error.message).to.equal('The request body is invalid: recipient.postalCode is required');
    expect(res.body.error.details).to.deep.include({
      field: 'recipient.postalCode',
      code: 'invalid_type',
      message: 'recipient.postalCode is required',
    });
  });
});
