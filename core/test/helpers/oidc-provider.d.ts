// oidc-provider ships no types; the test provider uses a few of its options (see operator-sso.browser.test.ts).
declare module 'oidc-provider';
