import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import {
  CHROMIUM_PATH,
  HEADLESS_SHELL_PATH,
  launchBrowser,
  screenshotOnFailure,
  type TestBrowser,
} from '../helpers/browser.ts';

for (const full of [false, true])
  describe(`browser test helper: headless Debian Chromium through playwright-core (${full ? 'the full browser, chromium' : 'the headless shell where installed'})`, function () {
    let b: TestBrowser | undefined;
    let server: Server;
    let base: string;
    before(async function () {
      b = await launchBrowser(this, { full });
      server = createServer((req, res) => {
        res.setHeader('content-type', 'text/html');
        res.setHeader('set-cookie', 'probe=1; HttpOnly; SameSite=Strict; Path=/');
        res.end(`<!doctype html><title>Probe</title><p id="p">${req.url === '/' ? 'hello' : 'other'}</p>`);
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterEach(async function () {
      await screenshotOnFailure(this, b);
    });
    after(async () => {
      await b?.close();
      server?.closeAllConnections();
      if (server) await new Promise<void>((r) => server.close(() => r()));
    });

    it(`runs in ${full ? 'chromium' : 'the headless shell, or chromium where the shell is not installed'}`, () => {
      const shell = !full && !process.env.CHROMIUM_PATH && existsSync(HEADLESS_SHELL_PATH);
      expect(b!.binary).to.equal(shell ? HEADLESS_SHELL_PATH : CHROMIUM_PATH);
    });

    it('opens a page, keeps its cookies per profile', async () => {
      const page = await b!.page();
      await page.goto(base);
      expect(await page.textContent('#p')).to.equal('hello');
      expect((await b!.browser.cookies(base)).map((c) => c.name)).to.deep.equal(['probe']);
      const other = await b!.isolated();
      expect(await other.cookies(base)).to.deep.equal([]);
    });
  });
