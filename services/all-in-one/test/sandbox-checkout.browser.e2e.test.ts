import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { describeWithBrowser, launchChromium } from '@cardlens/testing';
import { startStack, type Stack } from './stack';

// What the owner sees on `npm start`: a real headless Chromium opens the checkoutUrl an agent got, presses
// Pay on the sandbox page, lands on the success page, and the agent's balance has risen.
describeWithBrowser('sandbox checkout in a real browser', () => {
  let stack: Stack;
  let browser: Browser;
  beforeAll(async () => {
    [stack, browser] = await Promise.all([startStack('embedded'), launchChromium()]);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('opens the checkoutUrl, clicks Pay, sees the success page, and the balance rises by the pack', async () => {
    const registered = await stack.call('POST', '/v1/agents', { body: { name: 'browser buyer', contactEmail: 'owner@example.com' }, ip: '203.0.113.77' });
    const headers = { 'X-Api-Key': String(registered.json.apiKey) };
    const offer = await stack.call('POST', '/v1/credits/purchase', { headers, body: { pack: 'starter' } });
    expect(offer.status).toBe(200);

    const page = await browser.newPage();
    await page.goto(String(offer.json.checkoutUrl));
    await expect(page.locator('.sandbox').textContent()).resolves.toContain('SANDBOX: no money moves');
    await expect(page.locator('body').textContent()).resolves.toContain('5.00 USD');
    await Promise.all([page.waitForURL(/\/checkout\/success\?session_id=cs_sandbox_/), page.click('#pay')]);
    await expect(page.locator('h1').textContent()).resolves.toBe('Payment received');

    const me = await stack.call('GET', '/v1/agents/me', { headers });
    expect(me.json.credits).toBe(28);
    expect(me.headers.get('x-credits-remaining')).toBe('28');

    // Back to the checkout link: already paid, no button to pay twice.
    await page.goto(String(offer.json.checkoutUrl));
    await expect(page.locator('#status').textContent()).resolves.toContain('complete');
    expect(await page.locator('#pay').count()).toBe(0);
  });
});
