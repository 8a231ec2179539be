import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateSample } from '@cardlens/card-synth';
import { openSql, type Sql } from './sql';
import { startStack, type Stack } from './stack';

// A scan whose job never reaches a worker (here: no worker runs at all, as when its job was lost with a
// broker) is queued again by the sweep, then fails visibly with a message that says so, and its credits
// come back exactly once.

describe('queue sweep: a scan no worker ever starts', () => {
  let stack: Stack;
  let sql: Sql;
  beforeAll(async () => {
    stack = await startStack('embedded', {
      SCAN_WORKER_ENABLED: 'false',
      SCAN_SETTLE_INTERVAL_MS: '250',
      SCAN_QUEUED_TIMEOUT_SECONDS: '1',
      SCAN_QUEUE_REQUEUES: '2',
    });
    sql = openSql(stack.database);
  }, 120_000);
  afterAll(async () => {
    await sql?.close();
    await stack?.stop();
  });

  it('is queued again twice, then failed with its credits refunded once', async () => {
    const registered = await stack.call('POST', '/v1/agents', { body: { name: 'sweep bot', contactEmail: 'sweep@example.com' }, ip: '198.51.100.90' });
    expect(registered.status).toBe(201);
    const auth = { Authorization: `Bearer ${String(registered.json.apiKey)}` };
    const before = Number((await stack.call('GET', '/v1/agents/me', { headers: auth })).json.credits);
    const photo = await generateSample(1_000_030, { photo: { megapixels: 1 } });
    const form = new FormData();
    form.append('modules', 'identify');
    form.append('front', new Blob([photo.frontJpeg], { type: 'image/jpeg' }), 'front.jpg');
    const accepted = await stack.call('POST', '/v1/scans', { form, headers: auth });
    expect(accepted.status).toBe(202);
    const id = Number(accepted.json.id);
    expect(Number((await stack.call('GET', '/v1/agents/me', { headers: auth })).json.credits)).toBe(before - Number(accepted.json.creditsCharged));

    const deadline = Date.now() + 60_000;
    let scan = (await stack.call('GET', `/v1/scans/${id}`, { headers: auth })).json;
    while (scan.status === 'queued' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      scan = (await stack.call('GET', `/v1/scans/${id}`, { headers: auth })).json;
    }
    expect(scan).toMatchObject({ id, status: 'failed' });
    expect(String(scan.error)).toMatch(/waited in the queue too long.*refunded/);
    const [row] = await sql.query<{ requeues: number; refund_due: boolean; settled: boolean }>(
      'SELECT requeues, refund_due, settled_at IS NOT NULL AS settled FROM scans.scans WHERE id = $1',
      [id],
    );
    expect(row).toEqual({ requeues: 2, refund_due: true, settled: expect.anything() });
    // Refunded once, even though the sweep keeps running.
    const waitRefund = Date.now() + 10_000;
    while (Number((await stack.call('GET', '/v1/agents/me', { headers: auth })).json.credits) !== before && Date.now() < waitRefund) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(Number((await stack.call('GET', '/v1/agents/me', { headers: auth })).json.credits)).toBe(before);
    const refunds = await sql.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM billing.ledger_entries WHERE kind = 'refund' AND refund_of_id = (SELECT debit_entry_id FROM scans.scans WHERE id = $1)",
      [id],
    );
    expect(refunds[0]!.n).toBe(1);
  }, 120_000);
});
