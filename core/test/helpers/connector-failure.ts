/** Moved to core/testing (the `@print-api/core/testing` package source); kept here for core's own tests. */
export * from '../../testing/connector-failure.ts';
