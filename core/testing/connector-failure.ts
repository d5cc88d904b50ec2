import { expect } from 'chai';
import { ConnectorError } from '@print-api/connector-kit';

/** The ConnectorError a promise rejects with (fails the test when it resolves or rejects otherwise). */
export async function connectorFailure(work: Promise<unknown>): Promise<ConnectorError> {
  try {
    await work;
  } catch (err) {
    expect(err).to.be.instanceOf(ConnectorError);
    return err as ConnectorError;
  }
  expect.fail('expected a ConnectorError');
}
