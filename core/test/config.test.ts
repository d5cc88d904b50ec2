import { expect } from 'chai';
import { ConfigError, loadConfig } from '../src/config.ts';

describe('configuration', () => {
  it('runs on embedded defaults with an empty environment', () => {
    const c = loadConfig({});
    expect(c).to.include({
      PORT: 3000,
      HOST: '127.0.0.1',
      DATA_DIR: './.data',
      RATE_LIMIT_PER_MINUTE: 120,
      ROLE: 'all',
      WORKER_NICE: 5,
      PRODUCTION_SIMULATOR: true,
    });
    expect(c.DATABASE_URL).to.equal(undefined);
    expect(c.REDIS_URL).to.equal(undefined);
  });

  const wrong: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'eighty' }, /^ {2}PORT /m],
    [{ PORT: '70000' }, /^ {2}PORT /m],
    [{ DATABASE_URL: 'mysql://localhost/db' }, /^ {2}DATABASE_URL must use postgres/m],
    [{ REDIS_URL: 'localhost:6379' }, /^ {2}REDIS_URL /m],
    [{ RATE_LIMIT_PER_MINUTE: '0' }, /^ {2}RATE_LIMIT_PER_MINUTE /m],
    [{ ENCRYPTION_KEY: 'short' }, /^ {2}ENCRYPTION_KEY must be 32 bytes/m],
    [{ NODE_ENV: 'production' }, /ADMIN_TOKEN is required when NODE_ENV=production/],
    [{ ROLE: 'worker' }, /ROLE =worker needs DATABASE_URL and REDIS_URL/],
    [{ WORKER_NICE: '20' }, /WORKER_NICE/],
    [{ PRODUCTION_SIMULATOR: 'maybe' }, /^ {2}PRODUCTION_SIMULATOR /m],
    [{ LOG_LEVEL: 'loud' }, /^ {2}LOG_LEVEL /m],
    // Trusting every hop would let any client choose its address (and walk past the lockouts).
    [{ TRUST_PROXY: 'true' }, /^ {2}TRUST_PROXY must be a number of proxy hops.*\(not: true\)/m],
    [{ TRUST_PROXY: '10.0.0.0/33' }, /^ {2}TRUST_PROXY .*\(not: 10\.0\.0\.0\/33\)/m],
    [{ TRUST_PROXY: 'proxy.internal' }, /^ {2}TRUST_PROXY /m],
  ];
  for (const [env, message] of wrong) {
    it(`stops on ${JSON.stringify(env)} naming the variable`, () => {
      expect(() => loadConfig(env)).to.throw(ConfigError, message);
    });
  }

  it('reads TRUST_PROXY as hops, or as addresses, ranges and Express names; unset trusts no proxy', () => {
    expect(loadConfig({}).TRUST_PROXY).to.equal(undefined);
    expect(loadConfig({ TRUST_PROXY: '1' }).TRUST_PROXY).to.equal(1);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8, fd00::/8, 192.0.2.7' }).TRUST_PROXY).to.deep.equal([
      'loopback',
      '10.0.0.0/8',
      'fd00::/8',
      '192.0.2.7',
    ]);
  });

  it('says what a wrong value must be, in words', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).to.throw(ConfigError, /^ {2}PORT must be a number$/m);
  });

  it('reads lists and flags', () => {
    const c = loadConfig({ OUTBOUND_ALLOWED_HOSTS: 'localhost, 127.0.0.1', PRODUCTION_SIMULATOR: 'off' });
    expect(c.OUTBOUND_ALLOWED_HOSTS).to.deep.equal(['localhost', '127.0.0.1']);
    expect(c.PRODUCTION_SIMULATOR).to.equal(false);
  });
});
