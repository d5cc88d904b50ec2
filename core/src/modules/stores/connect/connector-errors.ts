import { ConnectorError, type ConnectorLogger } from '@print-api/connector-kit';
import { Refusal } from '../../../kernel/refusal.ts';
import { PermanentJobError, RetryLaterError } from '../../../infra/queue/job-queue.ts';
import { refusedPrivateHost } from '../outbound/connector-http.ts';

/**
 * A connector setting's variable in a message (`CONNECTOR_SHOPIFY_API_KEY`): the operator's business, never a
 * merchant's.
 */
const OPERATOR_SETTING = /\bCONNECTOR_[A-Z0-9_]+\b/;

/** How long a job waits when a platform says it is rate limited without saying for how long. */
export const DEFAULT_RATE_LIMIT_WAIT_MS = 2000;

/**
 * Which connect flow a platform refused: pasted or issued credentials (`POST /stores`, key-issuing flows), or an OAuth
 * install.
 */
export type ConnectFlow = 'credentials' | 'install';

/**
 * The one mapping of a connector's typed failure to the API's refusals (the error catalogue gives each its status), for every request that
 * waits on a platform (`POST /stores`, install links and their callback, key-issuing flows):
 * - an address that is not public (refused by the outbound guard before connecting): 422
 *   `store_not_connectable`, "not public", naming the host only;
 * - `auth`: 422 `store_credentials_rejected` (credentials) or `store_install_rejected` (an
 *   OAuth install whose code, state or signature the platform or connector refused);
 * - `invalid_payload`: 422 `store_not_connectable` (not a store of the platform, or set up in
 *   a way the connection cannot use: the connector's message says what to change);
 * - `rate_limited`: 503 `store_rate_limited` with Retry-After (the platform asks us to wait);
 * - `upstream_unavailable`: 502 `store_unreachable`;
 * - a message naming a connector setting (`set CONNECTOR_SHOPIFY_API_KEY`) is about our set-up:
 *   logged for the operator, answered in a merchant's words (502 `store_unreachable`, or 422
 *   `store_install_rejected` in an install) without the variable and without "<platform> said".
 */
export function connectorRefusal(
  platformName: string,
  err: ConnectorError,
  flow: ConnectFlow = 'credentials',
  logger?: ConnectorLogger,
): Refusal {
  const privateHost = refusedPrivateHost(err);
  if (privateHost !== undefined) {
    // Refused before any connection: nothing answered, and the message says no more than that.
    return new Refusal(
      'store_not_connectable',
      `The store address is not public: ${privateHost} is a local, private or reserved address, which Print API does not connect to. Give the ${platformName} store's public https address.`,
    );
  }
  if (OPERATOR_SETTING.test(err.message)) {
    // About our own set-up (a setting unset or refused), not the merchant's store: the operator
    // reads the variables in the log; the merchant, in the answer and on the dashboard, only
    // what it means for them. And the platform said none of it.
    logger?.warn(`${platformName}: ${err.message}`, { kind: err.kind, flow });
    return new Refusal(
      flow === 'install' ? 'store_install_rejected' : 'store_unreachable',
      `${platformName} stores cannot be connected here at the moment: this service's ${platformName} set-up is incomplete, and its operator has the details. Try again later.`,
    );
  }
  const message = `${platformName} said: ${err.message}`;
  switch (err.kind) {
    case 'auth':
      return new Refusal(flow === 'install' ? 'store_install_rejected' : 'store_credentials_rejected', message);
    case 'invalid_payload':
      return new Refusal('store_not_connectable', message);
    case 'rate_limited': {
      const seconds = Math.max(1, Math.ceil((err.retryAfterMs ?? DEFAULT_RATE_LIMIT_WAIT_MS) / 1000));
      return new Refusal('store_rate_limited', `${message}; try again in ${seconds} s.`, undefined, {
        retryAfter: seconds,
      });
    }
    case 'upstream_unavailable':
      return new Refusal('store_unreachable', message);
  }
}

/** Runs a request's call to a platform, its typed failures answered as connectorRefusal says. */
export async function answeringFor<T>(
  platformName: string,
  flow: ConnectFlow,
  work: () => Promise<T>,
  logger?: ConnectorLogger,
): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ConnectorError) throw connectorRefusal(platformName, err, flow, logger);
    throw err;
  }
}

/**
 * What a job does about a connector's typed failure: a rate limit waits (no attempt spent),
 * refused credentials and payloads we cannot use are given up on (retrying cannot help), an
 * unavailable platform is retried with the queue's backoff (the error as it is).
 */
export function jobErrorFor(platformName: string, err: unknown): unknown {
  if (!(err instanceof ConnectorError)) return err;
  switch (err.kind) {
    case 'rate_limited':
      return new RetryLaterError(err.message, err.retryAfterMs ?? DEFAULT_RATE_LIMIT_WAIT_MS);
    case 'auth':
    case 'invalid_payload':
      return new PermanentJobError(`${platformName}: ${err.message}`);
    case 'upstream_unavailable':
      return err;
  }
}

/**
 * How long work that failed should wait before its own retry: what the platform or the call budget asked for, else a
 * second.
 */
export function retryDelayFor(err: unknown): number {
  if (err instanceof ConnectorError && err.kind === 'rate_limited')
    return err.retryAfterMs ?? DEFAULT_RATE_LIMIT_WAIT_MS;
  if (err instanceof RetryLaterError) return err.retryAfterMs;
  return 1000;
}
