import { invalidRequest } from '../kernel/refusal.ts';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The request's `Idempotency-Key` header, checked (1-255 printable ASCII characters, no
 * spaces); undefined when absent and not `required` (`what`: the operation, for the message).
 */
export function idempotencyKeyOf(
  headers: Record<string, string | string[] | undefined>,
  options: { required: true; what: string },
): string;
export function idempotencyKeyOf(
  headers: Record<string, string | string[] | undefined>,
  options: { required: false; what: string },
): string | undefined;
export function idempotencyKeyOf(
  headers: Record<string, string | string[] | undefined>,
  options: { required: boolean; what: string },
): string | undefined {
  const key = headers['idempotency-key'];
  if (typeof key !== 'string' || key.length === 0) {
    if (!options.required) return undefined;
    throw invalidRequest(`The Idempotency-Key header is required when ${options.what}.`, [
      { field: 'Idempotency-Key', code: 'missing_header' },
    ]);
  }
  if (!IDEMPOTENCY_KEY.test(key))
    throw invalidRequest('The Idempotency-Key must be 1-255 printable ASCII characters without spaces.', [
      { field: 'Idempotency-Key', code: 'invalid_header' },
    ]);
  return key;
}
