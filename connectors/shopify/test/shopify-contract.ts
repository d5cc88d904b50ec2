import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import {
  buildSchema,
  execute,
  GraphQLError,
  parse,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { getVariableValues } from 'graphql/execution/values.js';

/**
 * Shopify's published contract for what the connector sends: the Admin GraphQL API schema
 * (SDL of version 2026-01, the newest public one found; see fixtures/SOURCES.md). Every
 * document the connector sends is validated against it (fields, arguments, types: graphql's
 * `validate`), its variables coerced by it (an enum value or input field the schema does not
 * have is refused), and every answer of the fake executed through it (the fake cannot answer
 * a field, enum value or null Shopify would not).
 */
export const ADMIN_SCHEMA_VERSION = '2026-01';

let schema: GraphQLSchema | undefined;
export function adminSchema(): GraphQLSchema {
  schema ??= buildSchema(
    gunzipSync(readFileSync(new URL(`./fixtures/admin-${ADMIN_SCHEMA_VERSION}.graphql.gz`, import.meta.url))).toString(
      'utf8',
    ),
    { assumeValidSDL: true },
  );
  return schema;
}

const documents = new Map<string, DocumentNode | readonly GraphQLError[]>();

/**
 * The request's violations of the schema: the query's (validation) and its variables' (coercion). Empty when it keeps
 * to the contract.
 */
export function requestViolations(query: string, variables: Record<string, unknown> = {}): string[] {
  let document = documents.get(query);
  if (!document) {
    try {
      const parsed = parse(query);
      const errors = validate(adminSchema(), parsed);
      document = errors.length ? errors : parsed;
    } catch (err) {
      document = [err as GraphQLError];
    }
    documents.set(query, document);
  }
  if (Array.isArray(document)) return document.map((e) => e.message);
  const operation = (document as DocumentNode).definitions.find(
    (d): d is OperationDefinitionNode => d.kind === 'OperationDefinition',
  )!;
  const coerced = getVariableValues(adminSchema(), operation.variableDefinitions ?? [], variables);
  return coerced.errors ? coerced.errors.map((e) => e.message) : [];
}

/**
 * The fake's answer run through the schema as the answer of `query`: the violations (a field
 * the query did not ask for is ignored, as a client would; a wrong enum value, a null where the
 * schema says non-null, a list where an object is, are not).
 */
export function responseViolations(query: string, variables: Record<string, unknown>, data: unknown): string[] {
  const document = documents.get(query);
  if (!document || Array.isArray(document)) return ['the request itself breaks the contract'];
  const result = execute({
    schema: adminSchema(),
    document: document as DocumentNode,
    rootValue: data,
    variableValues: variables,
    typeResolver: typeOfNode,
  });
  if (result instanceof Promise) return ['unexpected asynchronous execution'];
  return (result.errors ?? []).map((e) => `${e.path?.join('.') ?? ''}: ${e.message}`);
}

/**
 * The concrete type of an interface value (`nodes(ids:)` gives `Node`s): its `__typename`, else the type its gid names.
 */
function typeOfNode(value: unknown): string | undefined {
  const v = value as { __typename?: string; id?: unknown } | null;
  if (v?.__typename) return v.__typename;
  return typeof v?.id === 'string' ? /^gid:\/\/shopify\/(\w+)\//.exec(v.id)?.[1] : undefined;
}
