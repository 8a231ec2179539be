import { describe, expect, it } from '@jest/globals';
import { AgentView } from '../../src/agent-view';

// The gateway's copy of per-agent billing reads (balances, subscription views): one billing read per agent until a change is announced (or the TTL passes),
// concurrent misses sharing it, and no answer from before a change kept after the change was announced.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Billing's balance reads: each call is recorded and answers when the test releases it (or at once). */
function billing(initial: number) {
  const state = { credits: initial, calls: 0, fail: false, hold: false };
  const held: Array<() => void> = [];
  const read = async (_agentId: number) => {
    state.calls++;
    const answer = state.credits;
    if (state.hold) await new Promise<void>((resolve) => held.push(resolve));
    if (state.fail) throw new Error('billing is down');
    return answer;
  };
  return { state, read, release: () => held.splice(0).forEach((resolve) => resolve()) };
}

describe('AgentView', () => {
  it('100 concurrent reads for one agent cost one billing read, and later reads none until a change is announced', async () => {
    const { state, read } = billing(12);
    const view = new AgentView('balance', read, { ttlMs: 10_000, maxEntries: 100 });
    expect(await Promise.all(Array.from({ length: 100 }, () => view.get(7)))).toEqual(Array(100).fill(12));
    expect(await view.get(7)).toBe(12);
    expect(state.calls).toBe(1);

    state.credits = 10;
    view.forget(7);
    expect(await view.get(7)).toBe(10);
    expect(state.calls).toBe(2);
    expect(await view.get(8)).toBe(10); // another agent is its own entry
    expect(state.calls).toBe(3);
  });

  it('a read in flight when the change is announced answers its caller but is not kept', async () => {
    const { state, read, release } = billing(5);
    const view = new AgentView('balance', read, { ttlMs: 10_000, maxEntries: 100 });
    state.hold = true;
    const before = view.get(7); // billing answered 5, the answer is still on its way
    state.credits = 3; // a debit commits and is announced
    view.forget(7);
    release();
    expect(await before).toBe(5);
    state.hold = false;
    expect(await view.get(7)).toBe(3);
    expect(state.calls).toBe(2);
  });

  it('a failed read is not kept: the next read asks billing again', async () => {
    const { state, read } = billing(4);
    const view = new AgentView('balance', read, { ttlMs: 10_000, maxEntries: 100 });
    state.fail = true;
    await expect(view.get(7)).rejects.toThrow('billing is down');
    state.fail = false;
    expect(await view.get(7)).toBe(4);
    expect(state.calls).toBe(2);
  });

  it('an entry is used for at most the TTL when no announcement arrives', async () => {
    const { state, read } = billing(9);
    const view = new AgentView('balance', read, { ttlMs: 40, maxEntries: 100 });
    expect(await view.get(7)).toBe(9);
    state.credits = 8;
    expect(await view.get(7)).toBe(9);
    await sleep(80);
    expect(await view.get(7)).toBe(8);
    expect(state.calls).toBe(2);
  });

  it('with TTL 0 it keeps nothing: every read asks billing', async () => {
    const { state, read } = billing(2);
    const view = new AgentView('balance', read, { ttlMs: 0, maxEntries: 100 });
    await Promise.all([view.get(7), view.get(7)]);
    await view.get(7);
    expect(state.calls).toBe(3);
  });

  it('an answer is kept no longer than it holds by billing\'s clock (a trial ending), however long the TTL', async () => {
    const state = { status: 'trialing', calls: 0 };
    const read = async (_agentId: number) => {
      state.calls++;
      return { status: state.status, holdsForMs: state.status === 'trialing' ? 40 : 0 };
    };
    const view = new AgentView('subscription', read, { ttlMs: 10_000, maxEntries: 100, holdsForMs: (v) => v.holdsForMs });
    expect((await view.get(7)).status).toBe('trialing');
    state.status = 'past_due'; // the trial ended by the clock: nothing was written, nothing announced
    expect((await view.get(7)).status).toBe('trialing');
    await sleep(80);
    expect((await view.get(7)).status).toBe('past_due');
    await sleep(80);
    expect((await view.get(7)).status).toBe('past_due'); // holdsForMs 0: kept for the TTL
    expect(state.calls).toBe(2);
  });

  it('forgetAll drops every agent (the sandbox clock jumped), including reads in flight', async () => {
    const { state, read, release } = billing(6);
    const view = new AgentView('balance', read, { ttlMs: 10_000, maxEntries: 100 });
    await Promise.all([view.get(1), view.get(2)]);
    state.hold = true;
    const inFlight = view.get(3);
    view.forgetAll();
    release();
    expect(await inFlight).toBe(6);
    state.hold = false;
    state.credits = 1;
    expect(await Promise.all([view.get(1), view.get(2), view.get(3)])).toEqual([1, 1, 1]);
    expect(state.calls).toBe(6);
  });
});
