export * from './connector.ts';
export * from './connector-error.ts';
export * from './store-order.ts';
