// Copies of the same photos never hold two engine turns: a copy waits, without a turn, until the scan of those photos
// on the engine is done, and the free slot goes to other scans meanwhile (a poison photo sent three times by one
// account holds one slot, not all of them).
import { describe, expect, it } from '@jest/globals';
import { EngineTurns } from '../src/domain/engine-turns';

const at = (second: number) => new Date(Date.UTC(2026, 10, 29, 12, 0, second));
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('EngineTurns: copies of photos on the engine', () => {
  it('a copy waits without a turn while another account takes the free slot; it goes once the photo is done', async () => {
    const turns = new EngineTurns(2);
    const order: string[] = [];
    const held = new Map<string, { release(): void }>();
    const take = (name: string, agentId: number, second: number, photoKey: string) =>
      turns.take({ agentId, queuedAt: at(second), photoKey }).then((turn) => {
        order.push(name);
        held.set(name, turn);
      });
    const first = take('poison 1', 1, 0, 'P');
    await tick();
    const copies = [take('poison 2', 1, 1, 'P'), take('poison 3', 1, 2, 'P')];
    await tick();
    // One slot is free, but only copies of the photo on the engine wait: they do not take it.
    expect(order).toEqual(['poison 1']);
    expect(turns.stats).toEqual({ running: 1, waiting: 2 });
    const other = take('ordinary', 2, 3, 'Q');
    await tick();
    expect(order).toEqual(['poison 1', 'ordinary']);
    held.get('ordinary')!.release();
    await tick();
    expect(order).toEqual(['poison 1', 'ordinary']); // still on the engine: the copies keep waiting
    held.get('poison 1')!.release();
    await tick();
    expect(order).toEqual(['poison 1', 'ordinary', 'poison 2']);
    held.get('poison 2')!.release();
    await Promise.all([first, other, ...copies]);
    expect(order).toEqual(['poison 1', 'ordinary', 'poison 2', 'poison 3']);
    held.get('poison 3')!.release();
    expect(turns.stats).toEqual({ running: 0, waiting: 0 });
  });

  it('scans without a photo key, or of different photos, are not held back', async () => {
    const turns = new EngineTurns(3);
    const a = await turns.take({ agentId: 1, queuedAt: at(0), photoKey: 'A' });
    const b = await turns.take({ agentId: 1, queuedAt: at(1), photoKey: 'B' });
    const c = await turns.take({ agentId: 1, queuedAt: at(2), photoKey: null });
    expect(turns.stats).toEqual({ running: 3, waiting: 0 });
    for (const turn of [a, b, c]) turn.release();
    expect(turns.stats).toEqual({ running: 0, waiting: 0 });
  });
});
