export * from './signed-webhooks.ts';
