import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { describeWithBrowser, launchChromium } from '../src/index';

// Proves the browser plumbing on its own (Debian's chromium driven by playwright-core): a real click on a form
// button makes a real POST reach a local server.

const PAGE = `<!doctype html>
<html><body>
  <form method="post" action="/submit">
    <input type="hidden" name="pack" value="starter">
    <button id="pay" type="submit">Pay</button>
  </form>
</body></html>`;

interface Posted {
  path: string;
  contentType: string | undefined;
  body: string;
}

describeWithBrowser('headless Chromium', () => {
  let server: Server;
  let baseUrl: string;
  let browser: Browser;
  const posts: Posted[] = [];
  let notifyPost: (post: Posted) => void = () => {};

  const readBody = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.method === 'POST') {
        void readBody(req).then((body) => {
          const post = { path: req.url ?? '', contentType: req.headers['content-type'], body };
          posts.push(post);
          notifyPost(post);
          res.writeHead(200, { 'Content-Type': 'text/html' }).end('<h1>Thanks</h1>');
        });
        return;
      }
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(PAGE);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  it('loads a page, clicks the form button and the POST arrives', async () => {
    const page = await browser.newPage();
    await page.goto(baseUrl);
    const arrived = new Promise<Posted>((resolve) => (notifyPost = resolve));
    await page.click('#pay');
    const post = await arrived;
    expect(post).toEqual({ path: '/submit', contentType: 'application/x-www-form-urlencoded', body: 'pack=starter' });
    await expect(page.locator('h1').textContent()).resolves.toBe('Thanks');
    expect(posts).toHaveLength(1);
  });
});
