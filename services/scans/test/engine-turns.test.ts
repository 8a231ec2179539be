// The scan worker's turns on the engine: a fair share per account, then scans in the order they were queued,
// whatever order their jobs arrive in, never more than the slots at once; a job waiting when its worker stops
// gives up.
import { describe, expect, it } from '@jest/globals';
import { ENGINE_TIME_HALF_LIFE_MS, EngineTurns } from '../src/domain/engine-turns';

const at = (second: number) => new Date(Date.UTC(2026, 10, 29, 12, 0, second));
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('EngineTurns', () => {
  it('grants turns in the order scans were queued (one account each), whatever order their jobs arrive in, two at a time', async () => {
    const turns = new EngineTurns(2);
    const order: number[] = [];
    const held = new Map<number, { release(): void }>();
    const take = (second: number) =>
      turns.take({ agentId: second, queuedAt: at(second) }).then((turn) => {
        order.push(second);
        held.set(second, turn);
      });
    // Jobs of three partitions arrive interleaved; 50 and 51 take the free slots at once.
    const all = [50, 51, 30, 40, 10, 20].map(take);
    await tick();
    expect(order).toEqual([50, 51]);
    expect(turns.stats).toEqual({ running: 2, waiting: 4 });
    held.get(50)!.release();
    held.get(50)!.release(); // a second release changes nothing
    await tick();
    expect(order).toEqual([50, 51, 10]);
    for (const second of [51, 10, 20, 30]) {
      held.get(second)!.release();
      await tick();
    }
    await Promise.all(all);
    expect(order).toEqual([50, 51, 10, 20, 30, 40]);
    held.get(40)!.release();
    expect(turns.stats).toEqual({ running: 0, waiting: 0 });
  });

  it('keeps arrival order between scans of one account queued at the same time', async () => {
    const turns = new EngineTurns(1);
    const first = await turns.take({ agentId: 1, queuedAt: at(0) });
    const order: string[] = [];
    const waiting = ['a', 'b', 'c'].map((name) => turns.take({ agentId: 2, queuedAt: at(5) }).then((turn) => (order.push(name), turn.release())));
    first.release();
    await Promise.all(waiting);
    expect(order).toEqual(['a', 'b', 'c']);
  });

  it('a job waiting when the worker stops gives up; the others keep their places', async () => {
    const turns = new EngineTurns(1);
    const running = await turns.take({ agentId: 1, queuedAt: at(0) });
    const stopping = new AbortController();
    const abandoned = turns.take({ agentId: 2, queuedAt: at(1) }, { signal: stopping.signal });
    const next = turns.take({ agentId: 3, queuedAt: at(2) });
    stopping.abort();
    await expect(abandoned).rejects.toThrow(/stopping/);
    expect(turns.stats).toEqual({ running: 1, waiting: 1 });
    running.release();
    (await next).release();
    expect(turns.stats).toEqual({ running: 0, waiting: 0 });
    await expect(turns.take({ agentId: 4, queuedAt: at(3) }, { signal: stopping.signal })).rejects.toThrow(/stopping/);
  });

  it('keeps a waiting job alive with heartbeats, and stops them once it has its turn', async () => {
    const turns = new EngineTurns(1, 10);
    const running = await turns.take({ agentId: 1, queuedAt: at(0) });
    let beats = 0;
    const waiting = turns.take({ agentId: 2, queuedAt: at(1) }, { heartbeat: async () => void beats++ });
    await new Promise((resolve) => setTimeout(resolve, 65));
    expect(beats).toBeGreaterThanOrEqual(3);
    running.release();
    (await waiting).release();
    const after = beats;
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(beats).toBe(after);
  });

  it("gives each account a fair share: a flood from one account does not hold back another's later scan", async () => {
    const turns = new EngineTurns(2);
    const order: string[] = [];
    const held: { release(): void }[] = [];
    const take = (agentId: number, second: number) =>
      turns.take({ agentId, queuedAt: at(second) }).then((turn) => {
        order.push(`${agentId}@${second}`);
        held.push(turn);
      });
    // Account 1 floods (10 scans queued at 0-9 s), account 2 queues one scan at 30 s, account 3 one at 40 s.
    const all = [...Array.from({ length: 10 }, (_, i) => take(1, i)), take(2, 30), take(3, 40)];
    await tick();
    expect(order).toEqual(['1@0', '1@1']);
    // A freed slot goes to the account with the fewest analyses running: account 2 (none) before the flood's third,
    // queued 28 s earlier.
    held.shift()!.release(); // 1@0 done; 1@1 still runs
    await tick();
    expect(order).toEqual(['1@0', '1@1', '2@30']);
    // 2@30 done: account 1 still has one running, account 3 none, so 3@40 goes next.
    held.splice(1, 1)[0]!.release();
    await tick();
    expect(order).toEqual(['1@0', '1@1', '2@30', '3@40']);
    while (held.length > 0) {
      held.shift()!.release();
      await tick();
    }
    await Promise.all(all);
    // The flood's own scans still go in the order they were queued.
    expect(order.slice(4)).toEqual(['1@2', '1@3', '1@4', '1@5', '1@6', '1@7', '1@8', '1@9']);
  });

  it('shares engine time: an account that has just had the engine goes behind accounts that have not, however early its scans were queued', async () => {
    let clock = 0;
    const turns = new EngineTurns(2, 3000, () => clock);
    const order: string[] = [];
    const held = new Map<string, { release(): void }>();
    const take = (agentId: number, second: number) =>
      turns.take({ agentId, queuedAt: at(second) }).then((turn) => {
        order.push(`${agentId}@${second}`);
        held.set(`${agentId}@${second}`, turn);
      });
    // Two flooding accounts (1 and 2) queue three scans each at 0-2 s; six other accounts one scan each at 10 s.
    const all = [take(1, 0), take(2, 0), take(1, 1), take(2, 1), take(1, 2), take(2, 2), ...[3, 4, 5, 6, 7, 8].map((agent) => take(agent, 10))];
    await tick();
    expect(order).toEqual(['1@0', '2@0']);
    // 2@0 held the engine 2 s: account 2 has no analysis running now, like accounts 3-8, but it has had 2 s of engine
    // time and they none, so account 3 goes next although 2@1 was queued 9 s before it.
    clock += 2000;
    held.get('2@0')!.release();
    await tick();
    expect(order.at(-1)).toBe('3@10');
    clock += 500;
    held.get('1@0')!.release();
    await tick();
    expect(order.at(-1)).toBe('4@10');
    // The other accounts each had their turn before either flood's second scan.
    for (const next of ['3@10', '4@10', '5@10', '6@10', '7@10', '8@10']) {
      clock += 1000;
      held.get(next)!.release();
      await tick();
    }
    expect(order.slice(0, 8)).toEqual(['1@0', '2@0', '3@10', '4@10', '5@10', '6@10', '7@10', '8@10']);
    // Between the two flooding accounts the one with less engine time lately goes first: account 2 (2 s against 2.5 s),
    // although 1@1 arrived first.
    expect(order.slice(8, 10)).toEqual(['2@1', '1@1']);
    for (let i = 8; i < all.length; i++) {
      clock += 1000;
      held.get(order[i]!)!.release();
      await tick();
    }
    await Promise.all(all);
    expect(order).toHaveLength(all.length);
    expect(turns.stats).toEqual({ running: 0, waiting: 0 });
  });

  it('forgets engine time with a half-life while the engine stays busy: long after a flood its account is back to first come, first served', async () => {
    let clock = 0;
    const turns = new EngineTurns(1, 3000, () => clock);
    const flood = await turns.take({ agentId: 1, queuedAt: at(0) });
    const busy = turns.take({ agentId: 9, queuedAt: at(0) }); // waits: the engine never goes idle below
    clock += 10_000;
    flood.release();
    const running = await busy;
    const order: number[] = [];
    const waiting = [turns.take({ agentId: 2, queuedAt: at(20) }), turns.take({ agentId: 1, queuedAt: at(10) })].map((p, i) => p.then((turn) => (order.push(i === 0 ? 2 : 1), turn.release())));
    clock += 20 * ENGINE_TIME_HALF_LIFE_MS;
    running.release();
    await Promise.all(waiting);
    expect(order).toEqual([1, 2]);
  });

  it('forgets engine time once the engine is idle: time used while nobody waited counts against nobody', async () => {
    let clock = 0;
    const turns = new EngineTurns(1, 3000, () => clock);
    const earlier = await turns.take({ agentId: 1, queuedAt: at(0) });
    clock += 10_000;
    earlier.release(); // nothing waits: the engine is idle
    const running = await turns.take({ agentId: 9, queuedAt: at(0) });
    const order: number[] = [];
    const waiting = [turns.take({ agentId: 2, queuedAt: at(20) }), turns.take({ agentId: 1, queuedAt: at(10) })].map((p, i) => p.then((turn) => (order.push(i === 0 ? 2 : 1), turn.release())));
    clock += 1000;
    running.release();
    await Promise.all(waiting);
    expect(order).toEqual([1, 2]);
  });
});
