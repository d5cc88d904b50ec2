export * from './connector.ts';
export * from './connector-context.ts';
export * from './inbound.ts';
export * from './connector-error.ts';
export * from './http-client.ts';
export * from './settings.ts';
export * from './publishing.ts';
export * from './store-order.ts';
// The toolbox: what every connector would otherwise write again.
export * from './fetch-adapter.ts';
export * from './hmac-signature.ts';
export * from './jwt-rs256.ts';
export * from './money.ts';
export * from './parse-payload.ts';
export * from './standard-webhooks.ts';
export * from './time-window-cursor.ts';
