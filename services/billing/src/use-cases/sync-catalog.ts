import { catalogOf, packCatalogEntry, type CatalogPrice, type CatalogProduct } from '../domain/catalog';
import type { PackConfig } from '../domain/pricing';
import type { PaymentProvider, ProviderPrice } from '../payments/provider';
import type { PurchaseDeps } from './purchase-deps';

export interface CatalogChange {
  action: 'product_created' | 'product_updated' | 'price_created' | 'price_replaced';
  /** The product's or the new price's id. */
  id: string;
  lookupKey?: string;
  amountCents?: number;
  /** price_replaced: the price the key moved from (archived for packs). */
  replaced?: string;
}

/**
 * `npm run billing:stripe-sync`: makes the provider's catalog what the price list says (domain/catalog.ts):
 * missing products and prices are created, renamed products renamed, a pack whose price changed gets a new
 * price that takes over the lookup key while the old is archived. A second run finds everything and changes
 * nothing. Checkouts ensure their own price too (catalogPriceId), so a forgotten sync never breaks a purchase.
 */
export async function syncCatalog(deps: PurchaseDeps): Promise<CatalogChange[]> {
  const changes: CatalogChange[] = [];
  for (const product of catalogOf(deps.pricing, deps.environment)) {
    const outcome = await deps.provider.ensureProduct(product);
    if (outcome !== 'unchanged') changes.push({ action: outcome === 'created' ? 'product_created' : 'product_updated', id: product.id });
    for (const price of product.prices) await ensurePrice(deps, product, price, changes);
  }
  return changes;
}

/** The pack's current price at the provider, for its checkout. */
export function packPriceId(deps: PurchaseDeps, pack: PackConfig): Promise<string> {
  const product = packCatalogEntry(pack, deps.environment);
  return catalogPriceId(deps, product, product.prices[0]!);
}

// Per provider instance: a lookup key and amount name one price until a sync replaces it (then the amount differs).
const known = new WeakMap<PaymentProvider, Map<string, string>>();

/** A catalog price's id: remembered, found by its lookup key, or created (product included) as the sync would. */
export async function catalogPriceId(deps: PurchaseDeps, product: CatalogProduct, price: CatalogPrice): Promise<string> {
  const cache = known.get(deps.provider) ?? new Map<string, string>();
  known.set(deps.provider, cache);
  const cacheKey = `${price.lookupKey}:${price.amountCents}`;
  const cached = cache.get(cacheKey);
  if (cached) return cached;
  const id = await ensurePrice(deps, product, price, [], true);
  cache.set(cacheKey, id);
  return id;
}

/** Whether a found price is the catalog's: a pack's key names the price for today's amount under its product. */
const isCurrent = (found: ProviderPrice, product: CatalogProduct, price: CatalogPrice): boolean =>
  !price.transfers || (found.unitAmount === price.amountCents && found.currency === 'usd' && found.interval === price.interval && found.productId === product.id);

async function ensurePrice(deps: PurchaseDeps, product: CatalogProduct, price: CatalogPrice, changes: CatalogChange[], ensureProduct = false): Promise<string> {
  const found = await deps.provider.findPriceByLookupKey(price.lookupKey);
  if (found && isCurrent(found, product, price)) {
    await recordPlanPrice(deps, price, found.id);
    return found.id;
  }
  if (ensureProduct) await deps.provider.ensureProduct(product);
  const created = await deps.provider.createPrice({
    productId: product.id,
    lookupKey: price.lookupKey,
    amountCents: price.amountCents,
    currency: 'usd',
    interval: price.interval,
    metadata: price.metadata,
    transferLookupKey: found !== undefined,
    // Names the transition, so racing instances make one price, and a later change back to this amount a new one.
    idempotencyKey: `price:${price.lookupKey}:${price.amountCents}:${found?.id ?? 'first'}`,
  });
  // Archived so no new checkout can sell the old amount; payments already made with it are untouched.
  if (found) await deps.provider.deactivatePrice(found.id);
  await recordPlanPrice(deps, price, created.id);
  changes.push({ action: found ? 'price_replaced' : 'price_created', id: created.id, lookupKey: price.lookupKey, amountCents: price.amountCents, ...(found ? { replaced: found.id } : {}) });
  return created.id;
}

/** Plan prices are remembered in plan_prices, so invoices and subscription items name their plan. */
async function recordPlanPrice(deps: PurchaseDeps, price: CatalogPrice, priceId: string): Promise<void> {
  if (!price.plan) return;
  await deps.prisma.planPrice.createMany({ data: [{ priceId, plan: price.plan, priceCents: price.amountCents, lookupKey: price.lookupKey }], skipDuplicates: true });
}
