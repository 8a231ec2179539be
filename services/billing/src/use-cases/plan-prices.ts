import { planCatalogEntry, planLookupKey } from '../domain/catalog';
import type { PlanConfig } from '../domain/pricing';
import type { PurchaseDeps } from './purchase-deps';
import { catalogPriceId } from './sync-catalog';

/**
 * The provider's recurring price for a plan at a price: found by lookup key (environment, plan, cents) or
 * created once under the plan's one product (as the catalog sync does), and remembered in plan_prices so
 * invoices and subscription items name their plan.
 */
export async function planPriceId(deps: PurchaseDeps, plan: PlanConfig, priceCents: number): Promise<string> {
  const known = await deps.prisma.planPrice.findUnique({ where: { lookupKey: planLookupKey(deps.environment, plan, priceCents) } });
  if (known) return known.priceId;
  const product = planCatalogEntry(plan, deps.environment, [priceCents]);
  return catalogPriceId(deps, product, product.prices[0]!);
}

/** The plan a provider price stands for (undefined for a price this service did not create). */
export async function planOfPrice(client: Pick<PurchaseDeps['prisma'], 'planPrice'>, priceId: string | null): Promise<string | undefined> {
  if (!priceId) return undefined;
  return (await client.planPrice.findUnique({ where: { priceId } }))?.plan;
}
