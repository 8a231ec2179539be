import type { Timestamp } from './gen/google/protobuf/timestamp';

// google.protobuf.Timestamp is kept as { seconds, nanos } in generated code (useDate=false); these are
// the only conversions services need. A missing Timestamp field means "null" on the HTTP side.

export function timestampFromDate(date: Date): Timestamp {
  const ms = date.getTime();
  if (Number.isNaN(ms)) throw new RangeError('Invalid Date');
  const seconds = Math.floor(ms / 1000);
  return { seconds, nanos: (ms - seconds * 1000) * 1_000_000 };
}

export function dateFromTimestamp(ts: Timestamp): Date {
  return new Date(ts.seconds * 1000 + Math.floor(ts.nanos / 1_000_000));
}

export function timestampFromIso(iso: string): Timestamp {
  return timestampFromDate(new Date(iso));
}

/** ISO 8601 in UTC with milliseconds (`2026-01-02T03:04:05.678Z`), as the HTTP API renders instants. */
export function isoFromTimestamp(ts: Timestamp): string {
  return dateFromTimestamp(ts).toISOString();
}

/** isoFromTimestamp for optional fields: a missing Timestamp renders as null. */
export function isoOrNull(ts: Timestamp | undefined): string | null {
  return ts === undefined ? null : isoFromTimestamp(ts);
}
