import { events } from '@cardlens/contracts';
import type { Bus, Subscription } from '@cardlens/bus';
import { processScanJob, type ProcessScanDeps } from '../use-cases/process-scan-job';

export const SCAN_WORKER_GROUP = 'scan-workers';

/**
 * The scan worker: a consumer group on the scan-job topic (keyed by scan id), taking up to `jobsPerPartition`
 * jobs of each partition at once, which wait their turn on the engine (a fair share per account, then first
 * come). Redelivery with backoff covers transient failures; the use case marks the scan failed on the last
 * attempt, so nothing reaches the DLQ unless the database itself is down.
 */
export function subscribeScanJobs(bus: Bus, deps: ProcessScanDeps, options: { attempts: number; jobsPerPartition: number }): Promise<Subscription> {
  return bus.subscribe({
    topic: events.scanJobRequested.topic,
    groupId: SCAN_WORKER_GROUP,
    retry: { attempts: options.attempts, initialBackoffMs: 1000, maxBackoffMs: 8000 },
    // Several jobs of each partition at once: they wait for the engine in the worker's turns (fair share, then FCFS).
    keyConcurrency: options.jobsPerPartition,
    handler: async (message) => {
      const job = events.scanJobRequested.decode(message.value);
      await processScanJob(deps, {
        scanId: job.scanId,
        attempt: message.attempt,
        lastAttempt: message.attempt >= options.attempts,
        signal: message.signal,
        heartbeat: message.heartbeat,
      });
    },
  });
}
