import nock from 'nock';

/**
 * Turns nock off around the current suite. Once any test file imports nock it intercepts every
 * socket of the process for the whole run (fetch, node:http, net), and on the way it decompresses
 * each request body by its Content-Encoding, throwing on one that does not decompress: a suite
 * that sends such bodies to the service (to see how the service reads them) needs it off.
 */
export function withoutNock(): void {
  let wasActive = false;
  before(() => {
    wasActive = nock.isActive();
    if (wasActive) nock.restore();
  });
  after(() => {
    if (wasActive) nock.activate();
  });
}
