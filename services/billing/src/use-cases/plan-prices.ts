import type { PlanConfig } from '../domain/pricing';
import type { PurchaseDeps } from './purchase-deps';

/**
 * The provider's recurring price for a plan at a price: found by lookup key (environment, plan, cents) or
 * created once, and remembered in plan_prices so invoices and subscription items name their plan.
 */
export async function planPriceId(deps: PurchaseDeps, plan: PlanConfig, priceCents: number): Promise<string> {
  const lookupKey = `cardlens_${deps.environment}_${plan.key}_${priceCents}`;
  const known = await deps.prisma.planPrice.findUnique({ where: { lookupKey } });
  if (known) return known.priceId;
  const priceId = await deps.provider.ensurePlanPrice({
    lookupKey,
    productName: `CardLens ${plan.displayName} (${plan.gradesPerMonth.toLocaleString('en-US')} grades per month)`,
    amountCents: priceCents,
    currency: 'usd',
    metadata: { plan: plan.key, environment: deps.environment },
  });
  await deps.prisma.planPrice.createMany({ data: [{ priceId, plan: plan.key, priceCents, lookupKey }], skipDuplicates: true });
  return priceId;
}

/** The plan a provider price stands for (undefined for a price this service did not create). */
export async function planOfPrice(client: Pick<PurchaseDeps['prisma'], 'planPrice'>, priceId: string | null): Promise<string | undefined> {
  if (!priceId) return undefined;
  return (await client.planPrice.findUnique({ where: { priceId } }))?.plan;
}
