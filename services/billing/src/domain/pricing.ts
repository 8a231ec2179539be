import { z } from 'zod';

/**
 * Prices are server configuration (the spec: module costs, pack prices and trial amounts may change at any
 * time). The defaults below are the spec's; PRICING_JSON overrides any part and is validated at startup.
 * Money is held in integer cents.
 */
const moduleSchema = z.object({ key: z.string(), credits: z.number().int().positive(), description: z.string(), available: z.boolean() });
const packSchema = z.object({ key: z.string().regex(/^[a-z0-9_]+$/), displayName: z.string(), credits: z.number().int().positive(), priceCents: z.number().int().positive() });
const planSchema = z.object({
  key: z.string().regex(/^[a-z0-9_]+$/),
  displayName: z.string(),
  gradesPerMonth: z.number().int().positive(),
  priceCents: z.number().int().positive(),
  /**
   * An announced price change: checkouts from effectiveAt are sold at priceCents. Subscribers are owed at least
   * PRICE_CHANGE_NOTICE_DAYS of notice, so billing refuses to start with a change closer than that to the
   * moment it first saw it (kept in billing.plan_price_announcements, so restarts do not re-date it).
   */
  priceChange: z.object({ priceCents: z.number().int().positive(), effectiveAt: z.iso.datetime({ offset: true }) }).optional(),
});

export const pricingSchema = z.object({
  modules: z.array(moduleSchema).min(1),
  packs: z.array(packSchema).min(1),
  plans: z.array(planSchema).min(1),
  trial: z.object({ anonymous: z.number().int().min(0), registered: z.number().int().min(0) }),
  trialDays: z.number().int().positive(),
  currencyNote: z.string(),
});

export type Pricing = z.infer<typeof pricingSchema>;
export type PackConfig = z.infer<typeof packSchema>;
export type PlanConfig = z.infer<typeof planSchema>;

/** Notice owed to subscribers before a plan's price changes. */
export const PRICE_CHANGE_NOTICE_DAYS = 14;

/** The plan's price for a checkout made at `at`. */
export function planPriceAt(plan: PlanConfig, at: Date): number {
  return plan.priceChange && at.getTime() >= Date.parse(plan.priceChange.effectiveAt) ? plan.priceChange.priceCents : plan.priceCents;
}

export function findPlan(pricing: Pricing, key: string): PlanConfig | undefined {
  return pricing.plans.find((p) => p.key === key);
}

export const defaultPricing: Pricing = {
  modules: [
    { key: 'identify', credits: 1, description: 'Card identification: name, subject, set, year, number, parallel, print run.', available: true },
    { key: 'grade', credits: 1, description: 'Identification plus an AI condition grade with centering, corners, edges and surface sub-grades.', available: true },
    { key: 'market', credits: 1, description: 'Identification plus raw and graded USD value estimates, per-grade value spread and market insights.', available: true },
    { key: 'full', credits: 2, description: 'Identification, grading, value and market analysis in one pass.', available: true },
    { key: 'deep', credits: 3, description: 'Multi-angle scan. Not available through this API (requests are rejected with deep_unsupported).', available: false },
  ],
  packs: [
    { key: 'starter', displayName: 'Starter', credits: 25, priceCents: 500 },
    { key: 'builder', displayName: 'Builder', credits: 120, priceCents: 1900 },
    { key: 'scale', displayName: 'Scale', credits: 400, priceCents: 4900 },
  ],
  plans: [
    { key: 'grading_5000', displayName: 'Grading 5,000', gradesPerMonth: 5000, priceCents: 25000 },
    { key: 'grading_10000', displayName: 'Grading 10,000', gradesPerMonth: 10000, priceCents: 44900 },
  ],
  trial: { anonymous: 1, registered: 3 },
  trialDays: 7,
  currencyNote: 'All prices are in US dollars (USD). Credit pack prices may change at any time; read GET /v1/pricing for live values.',
};

/** Merges an override (top-level keys replace the defaults) and validates the result. */
export function parsePricing(overrideJson: string | undefined): Pricing {
  if (!overrideJson) return pricingSchema.parse(defaultPricing);
  const override = JSON.parse(overrideJson) as Partial<Pricing>;
  return pricingSchema.parse({ ...defaultPricing, ...override });
}

export function moduleCost(pricing: Pricing, key: string): number | undefined {
  return pricing.modules.find((m) => m.key === key && m.available)?.credits;
}
