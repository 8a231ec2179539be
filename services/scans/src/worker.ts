import { runScansProcess } from './process';
import { startScanWorker } from './service';

// A scan-worker process (the chart's scan-worker Deployment): one member of the scan-workers consumer group.
await runScansProcess('scan-worker', startScanWorker);
