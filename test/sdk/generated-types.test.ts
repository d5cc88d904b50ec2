import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { migratedPgliteTemplate } from '../../core/testing/services.ts';
import { DOCUMENT_FILE, sdkFiles, TYPES_FILE } from '../../scripts/sdk-openapi.ts';
import { scaled } from '../../core/test/helpers/wait.ts';

describe("the SDK's generated types", function () {
  // A throwaway embedded service serves the document; openapi-typescript loads TypeScript 5's compiler.
  this.timeout(scaled(120_000));

  it('match the OpenAPI document the service serves (run `npm run sdk:generate` after changing a route)', async () => {
    const wanted = await sdkFiles({ pgliteTemplate: await migratedPgliteTemplate() });
    const stale =
      'out of date: run `npm run sdk:generate` and commit packages/sdk/openapi.json and packages/sdk/src/generated/api.ts';
    expect(readFileSync(DOCUMENT_FILE, 'utf8') === wanted.document, `packages/sdk/openapi.json is ${stale}`).to.equal(
      true,
    );
    expect(readFileSync(TYPES_FILE, 'utf8') === wanted.types, `packages/sdk/src/generated/api.ts is ${stale}`).to.equal(
      true,
    );
  });
});
