import { events } from '@cardlens/contracts';
import type { Bus, Subscription } from '@cardlens/bus';
import type { Logger } from '@cardlens/telemetry';
import type { PrismaClient } from '../db';
import { saleFromProto } from '../grpc/valuation-grpc';
import { ingestSales, type IngestResult } from '../use-cases/ingest-sales';

export const VALUATION_CONSUMER_GROUP = 'valuation';

/**
 * Thin transport for continuous sales feeds (topic cardlens.valuation.v1.SalesRecord, key card id). Redelivery
 * is harmless: (source, source_id) is unique, so a replayed record is counted as a duplicate and changes nothing.
 * A record that cannot be stored (unknown card, bad price) is logged and skipped, not retried forever.
 */
export function subscribeSalesFeed(bus: Bus, prisma: PrismaClient, logger: Logger, onInserted: (r: IngestResult) => void): Promise<Subscription> {
  return bus.subscribe({
    topic: events.salesRecord.topic,
    groupId: VALUATION_CONSUMER_GROUP,
    handler: async (message) => {
      const sale = saleFromProto(events.salesRecord.decode(message.value));
      if (typeof sale === 'string') {
        logger.warn({ reason: sale }, 'sales record rejected');
        return;
      }
      const result = await ingestSales(prisma, [sale]);
      if (result.rejected > 0) logger.warn({ reason: result.rejections[0]?.reason, source: sale.source }, 'sales record rejected');
      if (result.inserted > 0) onInserted(result);
    },
  });
}
