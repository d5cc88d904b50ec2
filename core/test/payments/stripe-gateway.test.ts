import { expect } from 'chai';
import nock from 'nock';
import { CardRejectedError } from '../../src/modules/payments/payment-gateway.ts';
import { StripeGateway } from '../../src/modules/payments/stripe-gateway.ts';

const STRIPE = 'https://api.stripe.com';

function paymentMethod(id: string) {
  return {
    id,
    object: 'payment_method',
    type: 'card',
    card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030, country: 'NL', funding: 'credit' },
    customer: null,
    livemode: false,
  };
}

describe('Stripe gateway (nock against the documented API shapes)', () => {
  before(() => nock.disableNetConnect());
  after(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });
  afterEach(() => expect(nock.isDone(), `pending mocks: ${nock.pendingMocks().join(', ')}`).to.equal(true));

  const gateway = new StripeGateway({ secretKey: 'sk_test_123' });

  it('saves a card: customer, payment method from the token, attach', async () => {
    nock(STRIPE)
      .post('/v1/customers', (body) => body.email === 'ops@acme.example' && body['metadata[resellerId]'] === 'rsl_1')
      .reply(200, { id: 'cus_123', object: 'customer', email: 'ops@acme.example' })
      .post('/v1/payment_methods', (body) => body.type === 'card' && body['card[token]'] === 'tok_visa')
      .reply(200, paymentMethod('pm_123'))
      .post('/v1/payment_methods/pm_123/attach', (body) => body.customer === 'cus_123')
      .reply(200, { ...paymentMethod('pm_123'), customer: 'cus_123' });
    const card = await gateway.saveCard({ token: 'tok_visa', resellerId: 'rsl_1', email: 'ops@acme.example' });
    expect(card).to.deep.equal({ paymentMethod: 'pm_123', customer: 'cus_123', brand: 'visa', last4: '4242' });
  });

  it('turns an invalid token into a CardRejectedError', async () => {
    nock(STRIPE)
      .post('/v1/customers')
      .reply(200, { id: 'cus_9', object: 'customer' })
      .post('/v1/payment_methods')
      .reply(400, {
        error: {
          type: 'invalid_request_error',
          code: 'resource_missing',
          message: "No such token: 'tok_nope'",
          param: 'card[token]',
        },
      });
    let error: unknown;
    try {
      await gateway.saveCard({ token: 'tok_nope', resellerId: 'rsl_1', email: 'x@example.com' });
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(CardRejectedError);
    // A pasted "token" may be a card number: the message never quotes it.
    expect((error as Error).message).not.to.contain('tok_nope');
  });

  it('charges off-session with the order as idempotency key', async () => {
    nock(STRIPE, { reqheaders: { 'idempotency-key': 'order:ord_1' } })
      .post(
        '/v1/payment_intents',
        (b) =>
          b.amount === '2599' &&
          b.currency === 'eur' &&
          b.off_session === 'true' &&
          b.confirm === 'true' &&
          b.payment_method === 'pm_123' &&
          b.customer === 'cus_123',
      )
      .reply(200, { id: 'pi_1', object: 'payment_intent', status: 'succeeded', amount: 2599, currency: 'eur' });
    const result = await gateway.charge({
      paymentMethod: 'pm_123',
      customer: 'cus_123',
      amountCents: 2599,
      idempotencyKey: 'order:ord_1',
      description: 'Print order ord_1',
    });
    expect(result).to.deep.equal({ ok: true, chargeId: 'pi_1' });
  });

  it('reports a declined card with its decline code', async () => {
    nock(STRIPE)
      .post('/v1/payment_intents')
      .reply(402, {
        error: {
          type: 'card_error',
          code: 'card_declined',
          decline_code: 'insufficient_funds',
          message: 'Your card has insufficient funds.',
          payment_intent: { id: 'pi_2', status: 'requires_payment_method' },
        },
      });
    const result = await gateway.charge({
      paymentMethod: 'pm_123',
      amountCents: 100,
      idempotencyKey: 'order:ord_2',
      description: 'x',
    });
    expect(result).to.deep.equal({
      ok: false,
      declineCode: 'insufficient_funds',
      message: 'Your card has insufficient funds.',
    });
  });

  it('reports a charge that needs authentication as not paid', async () => {
    nock(STRIPE)
      .post('/v1/payment_intents')
      .reply(200, { id: 'pi_3', object: 'payment_intent', status: 'requires_action' });
    const result = await gateway.charge({
      paymentMethod: 'pm_123',
      amountCents: 100,
      idempotencyKey: 'order:ord_3',
      description: 'x',
    });
    expect(result.ok).to.equal(false);
  });

  it('refunds a payment intent', async () => {
    nock(STRIPE, { reqheaders: { 'idempotency-key': 'refund:ord_1' } })
      .post('/v1/refunds', (b) => b.payment_intent === 'pi_1' && b.amount === '2599')
      .reply(200, { id: 're_1', object: 'refund', status: 'succeeded' });
    expect(await gateway.refund({ chargeId: 'pi_1', amountCents: 2599, idempotencyKey: 'refund:ord_1' })).to.deep.equal(
      { refundId: 're_1' },
    );
  });
});
