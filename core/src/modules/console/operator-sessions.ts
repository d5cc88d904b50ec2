import { sha256Hex } from '../../infra/crypto.ts';
import { isOperatorRole, type Operator } from '../operators/operator-roles.ts';
import type { BrowserSession } from '../sessions/session-store.ts';

/** Which admin token opened a session (a hash of a hash: nothing to recover the token from). */
export function tokenFingerprint(adminToken: string): string {
  return sha256Hex(`operator-session:${sha256Hex(adminToken)}`).slice(0, 32);
}

/**
 * The operator a console session acts as, or undefined when it no longer counts. A session opened with the admin
 * token counts while that token is the deployment's (rotating ADMIN_TOKEN signs every such session out) and acts as
 * the admin token; one opened by single sign-on acts as the person, with the role their provider gave them.
 */
export function operatorOfSession(adminToken: string): (session: BrowserSession) => Operator | undefined {
  const current = tokenFingerprint(adminToken);
  return (session) => {
    if (session.kind !== 'operator') return undefined;
    const data = session.data;
    if (data.via === 'oidc') {
      if (!isOperatorRole(data.role) || typeof data.sub !== 'string') return undefined;
      return {
        role: data.role,
        actor: {
          type: 'operator',
          id: data.sub,
          ...(typeof data.name === 'string' && data.name ? { name: data.name } : {}),
          ...(typeof data.email === 'string' && data.email ? { email: data.email } : {}),
        },
      };
    }
    if (data.tokenFingerprint === current) return { role: 'admin', actor: { type: 'admin_token', id: 'admin' } };
    return undefined;
  };
}
