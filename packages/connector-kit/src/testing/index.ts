export * from './signed-webhooks.ts';
export * from './fake-platform.ts';
export * from './conformance.ts';
export * from './fake-server.ts';
export * from './openapi-contract.ts';
export * from './golden.ts';
export * from './publishing-conformance.ts';
