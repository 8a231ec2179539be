import type { Stack } from './stack';

/** What the purchase e2e suites do as an agent: register, buy, read the balance, wait for a grant (on the stack a suite's beforeAll starts). */
export function purchaseClient(stackOf: () => Stack, ipPrefix: string) {
  let ipCounter = 0;
  const balanceOf = async (headers: Record<string, string>) => Number((await stackOf().call('GET', '/v1/agents/me', { headers })).json.credits);
  return {
    /** A registered agent (3 trial credits) on a fresh client address, so per-IP limits never interfere. */
    async newAgent() {
      const r = await stackOf().call('POST', '/v1/agents', { body: { name: 'buyer', contactEmail: 'owner@example.com' }, ip: `${ipPrefix}.${++ipCounter % 250}` });
      if (r.status !== 201) throw new Error(`registration answered ${r.status}`);
      return { agentId: Number(r.json.agentId), headers: { 'X-Api-Key': String(r.json.apiKey) } };
    },
    purchase: (headers: Record<string, string>, body: unknown) => stackOf().call('POST', '/v1/credits/purchase', { headers, body }),
    balanceOf,
    /** Polls GET /v1/agents/me until the balance is `expected` (grants arrive through the bus) or 15 s pass. */
    async waitForBalance(headers: Record<string, string>, expected: number) {
      let balance = -1;
      for (let i = 0; i < 150 && balance !== expected; i++) {
        balance = await balanceOf(headers);
        if (balance !== expected) await new Promise((r) => setTimeout(r, 100));
      }
      return balance;
    },
    sessionIdOf: (checkoutUrl: unknown) => String(checkoutUrl).split('/').at(-1)!,
  };
}
