import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { generateSample } from '@cardlens/card-synth';
import { describeWithBrowser, launchChromium } from '@cardlens/testing';
import { openSql } from './sql';
import { startStack, type Stack } from './stack';

// What a person sees when an agent hands them a scan's share link: a real headless Chromium opens links.report
// with no key. The page shows the card, the AI grade (as an estimate) with its sub-grades, what limited it, the
// overlay, defects, centering, values with source and date, and the attribution link; it logs no console error
// and loads nothing from elsewhere. Revoked and expired links answer 404. The screenshots are CI artifacts.

const ARTIFACTS = process.env.CI_ARTIFACTS_DIR ?? fileURLToPath(new URL('../../../.ci/.work/artifacts', import.meta.url));

async function completedScan(stack: Stack, headers: Record<string, string>): Promise<Record<string, unknown>> {
  const sample = await generateSample(1_000_010, { photo: { megapixels: 2 } });
  const form = new FormData();
  form.set('modules', 'full');
  form.set('front', new Blob([new Uint8Array(sample.frontJpeg)], { type: 'image/jpeg' }), 'front.jpg');
  form.set('back', new Blob([new Uint8Array(sample.backJpeg)], { type: 'image/jpeg' }), 'back.jpg');
  const accepted = await stack.call('POST', '/v1/scans', { headers, form });
  expect(accepted.status).toBe(202);
  for (let i = 0; i < 600; i++) {
    const scan = await stack.call('GET', `/v1/scans/${String(accepted.json.id)}`, { headers });
    if (scan.json.status === 'completed') return scan.json;
    if (scan.json.status === 'failed') throw new Error(`scan failed: ${JSON.stringify(scan.json)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the scan did not complete');
}

/** Opens a URL in a fresh page and collects console errors, failed requests and requests to other origins. */
async function open(browser: Browser, url: string, viewport = { width: 1280, height: 900 }): Promise<{ page: Page; status: number; problems: string[] }> {
  const page = await browser.newPage({ viewport });
  const problems: string[] = [];
  const origin = new URL(url).origin;
  page.on('console', (message) => (message.type() === 'error' ? problems.push(`console: ${message.text()}`) : undefined));
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
  page.on('response', (response) => (response.status() >= 400 && response.url() !== url ? problems.push(`${response.status()}: ${response.url()}`) : undefined));
  page.on('request', (request) => (new URL(request.url()).origin !== origin ? problems.push(`external: ${request.url()}`) : undefined));
  const response = await page.goto(url);
  return { page, status: response?.status() ?? 0, problems };
}

describeWithBrowser('scan report page in a real browser', () => {
  let stack: Stack;
  let browser: Browser;
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    [stack, browser] = await Promise.all([startStack('embedded'), launchChromium()]);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('opens links.report without a key and shows the whole report, then 404 once revoked or expired', async () => {
    const registered = await stack.call('POST', '/v1/agents', { body: { name: 'report owner', contactEmail: 'owner@example.com' }, ip: '203.0.113.91' });
    const headers = { Authorization: `Bearer ${String(registered.json.apiKey)}` };
    const scan = await completedScan(stack, headers);
    const links = scan.links as { self: string; report: string };
    expect(links.report).toMatch(new RegExp(`^${stack.baseUrl}/r/s[A-Za-z0-9_-]{43}$`));
    expect(Date.parse(String(scan.reportExpiresAt)) - Date.now()).toBeGreaterThan(29 * 86_400_000);
    const grading = scan.grading as { grade: number | null; subGrades: Record<string, number | null> };
    const identification = scan.identification as { name: string; set: string };

    const desktop = await open(browser, links.report);
    expect(desktop.status).toBe(200);
    const { page } = desktop;
    await expect(page.locator('h1').textContent()).resolves.toBe(identification.name);
    const body = (await page.locator('body').textContent()) ?? '';
    expect(body).toContain(identification.set);
    expect(body).toContain('AI estimate');
    expect(body).toContain('not a certified grade');
    expect(body).toContain('What limited it');
    expect(body).toContain('Centering');
    expect(body).toContain('Value estimate (USD)');
    if (grading.grade !== null) await expect(page.locator('.grade').textContent()).resolves.toContain(String(grading.grade));
    // Headings in order, one h1; every image has alt text and loaded (the overlay comes through the same link).
    expect(await page.locator('h1').count()).toBe(1);
    expect(await page.locator('h2').allTextContents()).toEqual(['Identification', 'AI condition estimate', 'Value estimate (USD)']);
    // (The callback runs in the page: its elements are images; this file is compiled without the DOM's types.)
    const images = await page.locator('img').evaluateAll((nodes) => nodes.map((n) => ({ alt: (n as unknown as { alt: string }).alt, width: (n as unknown as { naturalWidth: number }).naturalWidth })));
    expect(images.length).toBeGreaterThan(0);
    for (const image of images) {
      expect(image.alt.length).toBeGreaterThan(20);
      expect(image.width).toBeGreaterThan(100);
    }
    // Attribution with a link; no scripts on the page.
    await expect(page.locator('footer a').getAttribute('href')).resolves.toBe(`${stack.baseUrl}/api-docs`);
    expect(await page.locator('script').count()).toBe(0);
    expect(desktop.problems).toEqual([]);
    await page.screenshot({ path: path.join(ARTIFACTS, 'report-page-desktop.png'), fullPage: true });

    // A phone: nothing wider than the screen.
    const phone = await open(browser, links.report, { width: 390, height: 844 });
    expect(await phone.page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await phone.page.screenshot({ path: path.join(ARTIFACTS, 'report-page-phone.png'), fullPage: true });
    expect(phone.problems).toEqual([]);
    // Printable: a PDF renders.
    expect((await page.pdf({ format: 'A4' })).length).toBeGreaterThan(10_000);

    // The response itself: not cached, not indexed, no referrer, a CSP that allows nothing from elsewhere.
    const raw = await fetch(links.report);
    expect(raw.headers.get('cache-control')).toBe('no-store');
    expect(raw.headers.get('x-robots-tag')).toBe('noindex, nofollow');
    expect(raw.headers.get('referrer-policy')).toBe('no-referrer');
    expect(raw.headers.get('content-security-policy')).toContain("default-src 'none'");

    // Revoked: the page (and its overlay) answer 404 at once; the scan shows no link until a new one is issued.
    const scanId = String(scan.id);
    expect((await stack.call('DELETE', `/v1/scans/${scanId}/report-link`, { headers })).status).toBe(204);
    const revoked = await open(browser, links.report);
    expect(revoked.status).toBe(404);
    await expect(revoked.page.locator('h1').textContent()).resolves.toBe('Report not found');
    expect((await stack.call('GET', `${new URL(links.report).pathname}`, { headers: { Accept: 'application/json' } })).json).toMatchObject({ status: 404, code: 'report_not_found' });
    expect((await fetch(`${links.report}/overlay.png`)).status).toBe(404);
    const after = await stack.call('GET', `/v1/scans/${scanId}`, { headers });
    expect((after.json.links as Record<string, unknown>).report).toBeUndefined();
    expect(after.json.reportExpiresAt).toBeNull();

    // A new link works; once its time is up it answers 404 like a revoked one.
    const issued = await stack.call('POST', `/v1/scans/${scanId}/report-link`, { headers, body: { expiresInDays: 1 } });
    expect(issued.status).toBe(201);
    expect(issued.headers.get('location')).toBe(issued.json.url);
    expect((await open(browser, String(issued.json.url))).status).toBe(200);
    const sql = openSql(stack.database);
    await sql.query(`UPDATE scans.report_links SET expires_at = now() - interval '1 second' WHERE token = $1`, [String(issued.json.url).split('/r/')[1]]);
    await sql.close();
    expect((await open(browser, String(issued.json.url))).status).toBe(404);
    expect((await stack.call('POST', `/v1/scans/${scanId}/report-link`, { headers, body: { expiresInDays: 0 } })).json).toMatchObject({ code: 'invalid_body' });
    expect((await stack.call('GET', '/r/not-a-token')).status).toBe(404);
  }, 180_000);

  it('a commercial grade has its report too: the condition only, as an AI estimate, revocable', async () => {
    const registered = await stack.call('POST', '/v1/agents', { body: { name: 'grading business', contactEmail: 'owner@example.com' }, ip: '203.0.113.92' });
    const headers = { 'X-Api-Key': String(registered.json.apiKey) };
    // The grading trial: a checkout paid with the sandbox card that works.
    const checkout = await stack.call('POST', '/v1/subscriptions/checkout', { headers, body: { plan: 'grading_5000' } });
    const paid = await fetch(`${stack.baseUrl}${new URL(String(checkout.json.checkoutUrl)).pathname}/pay`, { method: 'POST', body: new URLSearchParams({ card: '4242424242424242' }), redirect: 'manual' });
    expect(paid.status).toBe(303);
    for (let i = 0; i < 100 && (await stack.call('GET', '/v1/subscriptions/me', { headers })).json.status !== 'trialing'; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    const sample = await generateSample(1_000_010, { photo: { megapixels: 2 } });
    const form = new FormData();
    form.set('front', new Blob([new Uint8Array(sample.frontJpeg)], { type: 'image/jpeg' }), 'front.jpg');
    form.set('back', new Blob([new Uint8Array(sample.backJpeg)], { type: 'image/jpeg' }), 'back.jpg');
    const graded = await stack.call('POST', '/v1/grades', { headers: { ...headers, 'Idempotency-Key': 'report-grade-1' }, form });
    expect(graded.status).toBe(200);
    const report = (graded.json.links as { report: string }).report;
    expect(report).toMatch(new RegExp(`^${stack.baseUrl}/r/g[A-Za-z0-9_-]{43}$`));
    expect((await stack.call('GET', `/v1/grades/${String(graded.json.id)}`, { headers })).json.links).toEqual(graded.json.links);

    const opened = await open(browser, report);
    expect(opened.status).toBe(200);
    await expect(opened.page.locator('h1').textContent()).resolves.toBe(`Grade ${String(graded.json.gradeId)}`);
    const body = (await opened.page.locator('body').textContent()) ?? '';
    expect(body).toContain('not a certified grade');
    expect(body).toContain('What limited it');
    expect(body).not.toContain('Value estimate');
    expect(await opened.page.locator('h2').allTextContents()).toEqual(['AI condition estimate']);
    expect(opened.problems).toEqual([]);
    await opened.page.screenshot({ path: path.join(ARTIFACTS, 'report-page-grade.png'), fullPage: true });

    expect((await stack.call('DELETE', `/v1/grades/${String(graded.json.id)}/report-link`, { headers })).status).toBe(204);
    expect((await open(browser, report)).status).toBe(404);
    const again = await stack.call('POST', `/v1/grades/${String(graded.json.id)}/report-link`, { headers });
    expect(again.status).toBe(201);
    expect((await open(browser, String(again.json.url))).status).toBe(200);
    // A grade's token opens no overlay (commercial grades keep no images).
    expect((await fetch(`${String(again.json.url)}/overlay.png`)).status).toBe(404);
  }, 120_000);
});
