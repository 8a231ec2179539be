// The grade-premium model is fitted across all cards' sales and stored (valuation.grade_premium_fits), so every
// replica prices with the same curve. A refit follows imports; the service re-reads the newest fit periodically.
import type { PrismaClient } from '../db';
import { fitGradePremium, GradePremiumModel } from '../domain/grade-premium';
import type { Sale } from '../domain/types';
import { toSale, type SaleRecordRow, SALE_COLUMNS } from './sales-query';

export async function refitGradePremium(prisma: PrismaClient): Promise<{ model: GradePremiumModel; salesUsed: number }> {
  const rows = await prisma.$queryRawUnsafe<SaleRecordRow[]>(
    `SELECT ${SALE_COLUMNS} FROM valuation.sales WHERE sold_at > now() - interval '730 days'`,
  );
  const sales: Sale[] = rows.map(toSale);
  const model = fitGradePremium(sales);
  await prisma.gradePremiumFit.create({ data: { model: model.toJSON() as object, salesUsed: sales.length } });
  return { model, salesUsed: sales.length };
}

/** The newest stored fit, or the built-in prior when nothing was fitted yet. */
export async function loadGradePremium(prisma: PrismaClient): Promise<{ model: GradePremiumModel; fittedAt: Date | null; salesUsed: number }> {
  const row = await prisma.gradePremiumFit.findFirst({ orderBy: { id: 'desc' } });
  if (!row) return { model: GradePremiumModel.prior(), fittedAt: null, salesUsed: 0 };
  return { model: GradePremiumModel.fromJSON(row.model), fittedAt: row.fittedAt, salesUsed: row.salesUsed };
}
