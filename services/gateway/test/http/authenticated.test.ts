import { beforeEach, describe, expect, it } from '@jest/globals';
import { scansV1 } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';
import type { AgentIdentity, Downstream } from '../../src/downstream';
import { useTestGateway } from './test-gateway';

// The balance travels with authentication: on a GET, billing's balance read starts as soon as the key is known
// and runs beside the route's own call; a write reads it after the write. Real HTTP against a fake downstream
// whose calls are recorded in order.

const KEY = { 'X-Api-Key': 'clk_test' };
const identity: AgentIdentity = { agentId: 7, name: 'poller', tier: 'registered', keyPrefix: 'clk_abcdefgh', contactEmail: null, createdAt: new Date(0) };

const events: string[] = [];
let credits = 40;
let balanceFails = false;
let balanceCalled: () => void = () => undefined;

const downstream = {
  authenticateApiKey: () => Promise.resolve(identity),
  getBalance: () => {
    events.push('balance:start');
    balanceCalled();
    return balanceFails ? Promise.reject(new Error('billing is down')) : Promise.resolve({ credits, hasPurchased: false });
  },
  // Answers once the balance read has started (or after 1 s): a balance read that only follows the scan read
  // shows up as 'scan:answered-alone'.
  getScan: async (_agentId: number, scanId: number) => {
    events.push('scan:start');
    const started = await Promise.race([
      new Promise<boolean>((resolve) => { balanceCalled = () => resolve(true); if (events.includes('balance:start')) resolve(true); }),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 1000)),
    ]);
    events.push(started ? 'scan:answered-beside-balance' : 'scan:answered-alone');
    if (scanId === 404) throw new AppError('not_found', 'No such scan.');
    return { scanId, status: scansV1.ScanStatus.QUEUED, modules: [], state: { $case: 'inFlight', value: { progressPercent: 0 } } };
  },
  createPortalSession: async () => {
    events.push('portal');
    credits = 39; // a write whose effect the header must report
    return 'https://billing.example/p/session_1';
  },
} as unknown as Downstream;

const gateway = useTestGateway(downstream);
beforeEach(() => {
  events.length = 0;
  credits = 40;
  balanceFails = false;
  balanceCalled = () => undefined;
});

describe('the balance with authentication', () => {
  it('a GET reads the balance beside the route call, once, and reports it', async () => {
    const response = await fetch(`${gateway.origin}/v1/scans/12`, { headers: KEY });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-credits-remaining')).toBe('40');
    expect(events.filter((e) => e === 'balance:start')).toHaveLength(1);
    expect(events).toContain('scan:answered-beside-balance');
  });

  it('a GET whose route fails answers its own problem, and the unused balance read changes nothing', async () => {
    balanceFails = true;
    const response = await fetch(`${gateway.origin}/v1/scans/404`, { headers: KEY });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { code: string }).code).toBe('not_found');
    // The process is still healthy: the next read works.
    balanceFails = false;
    expect((await fetch(`${gateway.origin}/v1/scans/12`, { headers: KEY })).status).toBe(200);
  });

  it('a GET whose balance read fails is a 5xx problem, not a success without the header', async () => {
    balanceFails = true;
    const response = await fetch(`${gateway.origin}/v1/scans/12`, { headers: KEY });
    expect(response.status).toBeGreaterThanOrEqual(500);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
  });

  it('a write reports the balance read after the write', async () => {
    const response = await fetch(`${gateway.origin}/v1/subscriptions/portal`, { method: 'POST', headers: KEY });
    expect(response.status).toBe(200);
    expect(events).toEqual(['portal', 'balance:start']);
    expect(response.headers.get('x-credits-remaining')).toBe('39');
  });
});
