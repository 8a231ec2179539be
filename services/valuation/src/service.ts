import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Bus } from '@cardlens/bus';
import { migrate, openPrisma, serviceLayout, type Database, type DatabaseConfig } from '@cardlens/db';
import { startGrpcServer } from '@cardlens/grpc-kit';
import type { Logger } from '@cardlens/telemetry';
import type { ValuationConfig } from './config';
import { PrismaClient } from './db';
import type { GradePremiumModel } from './domain/grade-premium';
import { subscribeSalesFeed } from './events/sales-feed';
import { valuationGrpcService } from './grpc/valuation-grpc';
import { decodeVector, FingerprintIndex } from './identification/fingerprint-index';
import { loadGradePremium, refitGradePremium } from './use-cases/grade-premium-fit';
import { fitGradedModel, type GradedModelFit } from './use-cases/market-data';
import { generateSampleSalesIfNone, loadCatalogIfEmpty, loadPricesIfEmpty } from './use-cases/seed-data';

export const valuationServiceDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Length of the vision engine's art fingerprint (packages/vision FINGERPRINT_DIMS). */
export const FINGERPRINT_DIMS = 112;

export interface RunningService {
  grpcPort: number;
  stop(): Promise<void>;
}

/**
 * Wires the valuation service: database (migrated; catalog and sample sales on first start when configured),
 * the reference-fingerprint index, the grade-premium fit, the sales-feed consumer and the gRPC server.
 */
export async function startValuationService(options: {
  config: ValuationConfig;
  database: DatabaseConfig | Database;
  /** Subscriptions are registered here; the caller starts the bus once every service has subscribed. */
  bus: Bus;
  logger: Logger;
}): Promise<RunningService> {
  const { config, database, bus, logger } = options;
  if (config.MIGRATE_ON_START) {
    const result = await migrate({ ...serviceLayout(valuationServiceDir), database, logger });
    logger.info({ applied: result.applied }, 'valuation migrations applied');
  }
  const { prisma, close } = await openPrisma(PrismaClient, database);
  if (config.CATALOG_AUTOLOAD) await loadCatalogIfEmpty(prisma, config.CATALOG_DIR, logger);
  if (config.PRICES_AUTOLOAD) await loadPricesIfEmpty(prisma, config.PRICES_DIR, logger);
  if (config.SAMPLE_SALES) {
    const inserted = await generateSampleSalesIfNone(prisma, { share: config.SAMPLE_SALES_SHARE, seed: config.SAMPLE_SALES_SEED, now: new Date(), logger });
    if (inserted > 0) await refitGradePremium(prisma);
  }

  const fingerprints = new FingerprintIndex();
  for (const row of await prisma.cardFingerprint.findMany({ select: { cardId: true, parallel: true, vector: true } })) {
    fingerprints.add(row.cardId, row.parallel, decodeVector(row.vector));
  }

  let premium: GradePremiumModel = (await loadGradePremium(prisma)).model;
  // The graded-price model is fitted from the stored tables (a few hundred cards: milliseconds), here and on
  // every reload, so an import by command reaches every replica.
  let gradedModel: GradedModelFit = await fitGradedModel(prisma);
  const reload = setInterval(() => {
    loadGradePremium(prisma).then(
      (fit) => (premium = fit.model),
      (err: unknown) => logger.warn({ err }, 'grade-premium reload failed'),
    );
    fitGradedModel(prisma).then(
      (fit) => (gradedModel = fit),
      (err: unknown) => logger.warn({ err }, 'graded-price model refit failed'),
    );
  }, config.PREMIUM_RELOAD_SECONDS * 1000);
  reload.unref();

  // Refit after new sales, at most one at a time and not more often than once a minute.
  let refitting: Promise<void> | null = null;
  let lastRefit = 0;
  const onSalesInserted = () => {
    if (refitting || Date.now() - lastRefit < 60_000) return;
    lastRefit = Date.now();
    refitting = refitGradePremium(prisma)
      .then((fit) => {
        premium = fit.model;
        logger.info({ salesUsed: fit.salesUsed }, 'grade-premium model refitted');
      })
      .catch((err: unknown) => logger.warn({ err }, 'grade-premium refit failed'))
      .finally(() => (refitting = null));
  };

  const salesFeed = await subscribeSalesFeed(bus, prisma, logger, onSalesInserted);
  const server = await startGrpcServer({
    host: config.VALUATION_GRPC_HOST,
    port: config.VALUATION_GRPC_PORT,
    services: [
      valuationGrpcService({
        prisma,
        fingerprints,
        fingerprintDims: FINGERPRINT_DIMS,
        premium: () => premium,
        gradedModel: () => gradedModel,
        gradingCostCents: config.GRADING_COST_CENTS,
        onSalesInserted,
        logger,
      }),
    ],
    logger,
  });
  return {
    grpcPort: server.port,
    stop: async () => {
      clearInterval(reload);
      await server.shutdown();
      await salesFeed.stop();
      await refitting;
      await close();
    },
  };
}
