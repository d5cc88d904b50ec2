import type { components } from '../../../../packages/sdk/src/generated/api.ts';

/**
 * What the reseller API answers the dashboard's pages, in the SDK's generated types (from the
 * same OpenAPI document the routes describe): a page reads the API's fields by their names.
 */
type Schemas = components['schemas'];

export type InstallLink = Schemas['InstallLink'];
export type Order = Schemas['Order'];
export type OrderLine = Schemas['OrderLine'];
export type Product = Schemas['Product'];
export type ResellerProduct = Schemas['ResellerProduct'];
export type Store = Schemas['Store'];
export type StoreIngest = Schemas['StoreIngest'];
export type StoreListing = Schemas['StoreListing'];
export type Wallet = Schemas['Wallet'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type WebhookDelivery = Schemas['WebhookDelivery'];

/** An answer of one thing: `{ data }`. */
export interface Data<T> {
  data: T;
}

/** A page of a list: its items and the cursor of the next page. */
export interface ListPage<T> {
  data: T[];
  nextCursor: string | null;
}
