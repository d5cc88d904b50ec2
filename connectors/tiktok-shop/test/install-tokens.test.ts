import { expect } from 'chai';
import { expiryAt } from '../src/install-tokens.ts';
import { classify } from '../src/errors.ts';

describe('TikTok Shop tokens and error codes', () => {
  const now = new Date('2026-01-01T00:00:00Z');

  it('reads an expiry given as a unix time, in milliseconds, or as a duration', () => {
    expect(expiryAt(1767830400, now)).to.equal('2026-01-08T00:00:00.000Z');
    expect(expiryAt(1767830400000, now)).to.equal('2026-01-08T00:00:00.000Z');
    expect(expiryAt(604800, now)).to.equal('2026-01-08T00:00:00.000Z');
    expect(expiryAt(undefined, now)).to.equal(null);
    expect(expiryAt(0, now)).to.equal(null);
  });

  it('maps a non-zero code: token errors renew, throttling waits, TikTok failures retry, the rest fail', () => {
    expect(classify(105002, 'Expired credentials. The access token has expired.', 200)).to.equal('token');
    expect(classify(105001, 'Invalid credentials', 401)).to.equal('token');
    expect(classify(105099, 'access token revoked', 200)).to.equal('token');
    expect(classify(36009006, 'Too many requests. Please try again later.', 200)).to.equal('throttle');
    expect(classify(36009006, 'whatever', 429)).to.equal('throttle');
    expect(classify(36009003, 'Internal error', 200)).to.equal('internal');
    expect(classify(36009004, 'param body.address is missing', 200)).to.equal('refused');
    expect(classify(106001, 'Invalid credentials. The sign is invalid.', 200)).to.equal('refused');
  });
});
