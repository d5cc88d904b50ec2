import type { components } from '../../../../packages/sdk/src/generated/api.ts';

/**
 * What the reseller API answers the dashboard's pages, in the SDK's generated types (from the
 * same OpenAPI document the routes describe), by schema name: `Api['Order']`. A page reads the
 * API's fields by their names, and one the API does not answer fails to compile.
 */
export type Api = components['schemas'];

/** An answer of one thing: `{ data }`. */
export interface Data<T> {
  data: T;
}

/** A page of a list: its items and the cursor of the next page. */
export interface ListPage<T> {
  data: T[];
  nextCursor: string | null;
}
