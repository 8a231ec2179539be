// Sales for the domain tests: card c1, a fixed "now", prices and ages chosen by each test.
import type { Sale } from '../src/domain/types';

export const NOW = new Date('2025-06-30T00:00:00Z');
export const DAY = 86_400_000;
let nextId = 0;

/** A sale of card c1 `daysAgo` days before NOW; raw unless grader/grade are given. */
export function sale(priceCents: number, daysAgo: number, graded: { grader: string; grade: number } | null = null): Sale {
  return {
    source: 'test',
    sourceId: String(nextId++),
    cardId: 'c1',
    parallel: '',
    grader: graded?.grader ?? null,
    grade: graded?.grade ?? null,
    priceCents,
    soldAt: new Date(NOW.getTime() - daysAgo * DAY),
    listingType: 'auction',
    title: 'test card',
  };
}
