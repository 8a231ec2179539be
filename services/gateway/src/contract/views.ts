// Compile-time ties between the gateway's response view types and the contract: each view type must be
// assignable to the document's schema output (z.output), so a view that changes without the contract (or the
// reverse) fails `npm run typecheck`. Views whose builders are typed by the contract directly (ScanAcceptedView,
// the `satisfies` in routes) need no line here.
import type { z } from 'zod';
import type { ScanCompletedView, ScanFailedView, ScanInFlightView, ScanResultView } from '../http/scan-view';
import type * as schemas from './schemas';

/** Resolves to true only when View is assignable to the schema's output. */
type Conforms<View extends z.output<Schema>, Schema extends z.ZodType> = View extends z.output<Schema> ? true : never;

export const viewConformance: {
  scanInFlight: Conforms<ScanInFlightView, typeof schemas.ScanInFlight>;
  scanFailed: Conforms<ScanFailedView, typeof schemas.ScanFailed>;
  scanCompleted: Conforms<ScanCompletedView, typeof schemas.ScanCompleted>;
  scanResult: Conforms<ScanResultView, typeof schemas.ScanResult>;
} = { scanInFlight: true, scanFailed: true, scanCompleted: true, scanResult: true };
