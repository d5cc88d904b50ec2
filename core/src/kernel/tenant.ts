/** Live keys place real orders; test keys reach the sandbox. Every tenant table is split by mode. */
export type Mode = 'live' | 'test';

/** Whose data a call acts on: one reseller, in one mode. Every tenant query is scoped by both. */
export interface Tenant {
  resellerId: string;
  mode: Mode;
}
