import type { PackConfig, PlanConfig, Pricing } from './pricing';

/**
 * What finance sees as the Stripe catalog: one Product per pack and per plan (ids of ours, so each is made once
 * per environment) and their Prices, each found by a lookup key. A pack has one current price: its key
 * `cardlens_<env>_pack_<pack>` moves to the new price when the list changes, and the old one is archived. A
 * plan has a price per amount (`cardlens_<env>_<plan>_<cents>`, the key plan_prices already records): during a
 * price change's notice both are sold, and subscribers stay on the old one until their change takes effect.
 */
export interface CatalogPrice {
  lookupKey: string;
  amountCents: number;
  interval: 'month' | null;
  metadata: Record<string, string>;
  /** Pack prices: a changed amount transfers the key to a new price and archives the old. */
  transfers: boolean;
  /** The plan a recurring price stands for (recorded in plan_prices). */
  plan?: string;
}

export interface CatalogProduct {
  id: string;
  name: string;
  metadata: Record<string, string>;
  prices: CatalogPrice[];
}

export const packProductName = (pack: PackConfig): string => `CardLens ${pack.displayName} credit pack (${pack.credits} credits)`;
export const planProductName = (plan: PlanConfig): string => `CardLens ${plan.displayName} (${plan.gradesPerMonth.toLocaleString('en-US')} grades per month)`;
export const planLookupKey = (environment: string, plan: PlanConfig, priceCents: number): string => `cardlens_${environment}_${plan.key}_${priceCents}`;

export function packCatalogEntry(pack: PackConfig, environment: string): CatalogProduct {
  const metadata = { kind: 'credit_pack', pack: pack.key, environment };
  return {
    id: `cardlens_${environment}_pack_${pack.key}`,
    name: packProductName(pack),
    metadata: { ...metadata, credits: String(pack.credits) },
    prices: [{ lookupKey: `cardlens_${environment}_pack_${pack.key}`, amountCents: pack.priceCents, interval: null, metadata, transfers: true }],
  };
}

export function planCatalogEntry(plan: PlanConfig, environment: string, amounts: number[] = planAmounts(plan)): CatalogProduct {
  const metadata = { kind: 'plan', plan: plan.key, environment };
  return {
    id: `cardlens_${environment}_plan_${plan.key}`,
    name: planProductName(plan),
    metadata: { ...metadata, grades_per_month: String(plan.gradesPerMonth) },
    prices: amounts.map((cents) => ({ lookupKey: planLookupKey(environment, plan, cents), amountCents: cents, interval: 'month' as const, metadata, transfers: false, plan: plan.key })),
  };
}

/** The plan's price now and, when one is announced, after its change. */
const planAmounts = (plan: PlanConfig): number[] => [...new Set([plan.priceCents, ...(plan.priceChange ? [plan.priceChange.priceCents] : [])])];

export function catalogOf(pricing: Pricing, environment: string): CatalogProduct[] {
  return [...pricing.packs.map((pack) => packCatalogEntry(pack, environment)), ...pricing.plans.map((plan) => planCatalogEntry(plan, environment))];
}
