export * from './connector.ts';
export * from './connector-error.ts';
export * from './settings.ts';
export * from './store-order.ts';
