import type { Clock } from '../clock';
import { DAY_MS } from '../clock';
import type { PrismaClient } from '../db';
import { PRICE_CHANGE_NOTICE_DAYS, type Pricing } from '../domain/pricing';

export class PriceChangeNoticeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PriceChangeNoticeError';
  }
}

/**
 * Startup check of the plan price changes in the configuration: each is announced (recorded with the time
 * billing first ran with it) and must take effect at least PRICE_CHANGE_NOTICE_DAYS after that announcement.
 * A change closer than that stops the service, so a price rise cannot reach subscribers unannounced; a restart
 * keeps the original announcement time.
 */
export async function checkPriceAnnouncements(deps: { prisma: PrismaClient; pricing: Pricing; clock: Clock }): Promise<void> {
  const now = deps.clock.now();
  const problems: string[] = [];
  for (const plan of deps.pricing.plans) {
    if (!plan.priceChange) continue;
    const effectiveAt = new Date(plan.priceChange.effectiveAt);
    const key = { plan: plan.key, priceCents: plan.priceChange.priceCents, effectiveAt };
    await deps.prisma.planPriceAnnouncement.createMany({ data: [{ ...key, announcedAt: now }], skipDuplicates: true });
    const announcement = await deps.prisma.planPriceAnnouncement.findUniqueOrThrow({ where: { plan_priceCents_effectiveAt: key } });
    const noticeDays = (effectiveAt.getTime() - announcement.announcedAt.getTime()) / DAY_MS;
    if (noticeDays < PRICE_CHANGE_NOTICE_DAYS) {
      // Not kept as announced: a corrected config (a later date) must be able to start.
      await deps.prisma.planPriceAnnouncement.deleteMany({ where: { ...key, announcedAt: now } });
      problems.push(
        `plan ${plan.key}: the price change to ${plan.priceChange.priceCents} cents at ${effectiveAt.toISOString()} gives ${noticeDays.toFixed(1)} days of notice ` +
          `(announced ${announcement.announcedAt.toISOString()}); at least ${PRICE_CHANGE_NOTICE_DAYS} are required`,
      );
    }
  }
  if (problems.length > 0) throw new PriceChangeNoticeError(`invalid price configuration: ${problems.join('; ')}`);
}
