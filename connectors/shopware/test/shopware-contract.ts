import { OpenApiContract, type ContractRequest } from '@print-api/connector-kit/testing';
import subset from './fixtures/admin-api.subset.json' with { type: 'json' };

type Json = Record<string, any>;

/**
 * Shopware's Admin API contract (`fixtures/admin-api.subset.json`), read the way Shopware reads it where the kit's
 * checker reads JSON Schema more strictly than the document means (in memory; the fixture stays as published):
 * - an `allOf` of object schemas is one object with every part's fields (the kit checks each part on its own and
 *   would call `client_id` of `OAuthClientCredentialsGrant` undeclared by `OAuthGrant`);
 * - `{type: 'null'}` (OpenAPI 3.1) matches only null (the kit ignores a type `null` and would let it match anything,
 *   so an `EqualsFilter` value would match two of its `oneOf`);
 * - a `PATCH` body is a partial entity (each operation says "Partially update information about a … resource"): the
 *   entity's `required` fields are not required at its top level (nested entities keep theirs).
 */
function readable(doc: Json): Json {
  const copy = structuredClone(doc);
  const schemas: Json = copy.components.schemas;
  const deref = (n: Json): Json => (typeof n?.$ref === 'string' ? deref(schemas[n.$ref.split('/').pop()!]) : n);
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    const n = node as Json;
    if (n.type === 'null' && !n.enum) n.enum = [null];
    if (Array.isArray(n.allOf) && n.allOf.every((p: Json) => deref(p).type === 'object' || deref(p).properties)) {
      const parts = n.allOf.map(deref);
      n.type = 'object';
      n.properties = Object.assign({}, ...parts.map((p: Json) => p.properties ?? {}), n.properties ?? {});
      n.required = [...new Set(parts.flatMap((p: Json) => p.required ?? []))];
      delete n.allOf;
    }
    for (const v of Object.values(n)) walk(v);
  };
  walk(copy);
  for (const item of Object.values<Json>(copy.paths)) {
    const body = item.patch?.requestBody?.content?.['application/json'];
    if (body) body.schema = { ...deref(body.schema), required: [] };
  }
  return copy;
}

export const adminApi = new OpenApiContract(readable(subset as Json), 'Shopware Admin API');

/**
 * What the contract refused since the last `takeContractViolations`, in every fake shop (each test checks it is
 * nothing).
 */
const violations: string[] = [];
export function takeContractViolations(): string[] {
  return violations.splice(0);
}

/** Checks a request against the contract, keeping what it refuses. */
export function checkRequest(req: ContractRequest): string[] {
  const found = adminApi.check(req).violations;
  violations.push(...found);
  if (found.length > 0 && process.env.CONTRACT_DEBUG) process.stderr.write(`${found.join('\n')}\n`);
  return found;
}

/** Records something the fake refuses that the contract's prose says (not its schema). */
export function recordViolation(message: string): void {
  violations.push(message);
}
