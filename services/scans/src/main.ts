import { runScansProcess } from './process';
import { startScansService } from './service';

// The scans process: the gRPC service, the outbox relay, settlement and (unless SCAN_WORKER_ENABLED=false, as
// the chart sets it) a scan worker.
await runScansProcess('scans', startScansService);
