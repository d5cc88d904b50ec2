import { expect } from 'chai';
import { z } from 'zod';
import { defineConnector } from '@print-api/connector-kit';
import { expectedReadme, settingsSection, withSection } from '../../scripts/connector-docs.ts';
import { referenceConnector } from '../reference-connector/src/index.ts';
import { scaled } from '../../core/test/helpers/wait.ts';

describe('the README table of connector settings (npm run docs:connectors)', () => {
  it('is up to date with the installed connectors’ manifests', async function () {
    this.timeout(scaled(30_000));
    const { current, expected } = await expectedReadme();
    expect(current === expected, 'README.md is out of date: run npm run docs:connectors').to.equal(true);
  });

  it('lists each setting with its variable, its default (or required/unset) and its description', () => {
    const secretive = defineConnector<unknown, any>({
      ...referenceConnector,
      manifest: {
        ...referenceConnector.manifest,
        platform: 'ACME_SHOP',
        displayName: 'Acme | Shop',
        settingsSchema: z.object({
          appSecret: z.string().meta({ description: 'Signs webhooks' }),
          webhookTopic: z.string().optional(),
        }),
      },
    });
    const section = settingsSection([secretive, referenceConnector]);
    expect(section).to.contain('| CONNECTOR_ACME_SHOP_APP_SECRET | Acme \\| Shop | required | Signs webhooks |');
    expect(section).to.contain('| CONNECTOR_ACME_SHOP_WEBHOOK_TOPIC | Acme \\| Shop | unset |  |');
    expect(section).to.contain('| CONNECTOR_REFERENCE_PAGE_SIZE | Reference shop | `50` | Orders per polling page |');
    expect(() => withSection('# no markers', section)).to.throw(/no <!-- connector-settings:start/);
  });
});
