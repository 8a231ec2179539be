// Generated gRPC contracts (proto/ -> src/gen via `npm run generate`). One namespace per generated file:
// `<package>V1` for a package's service file and `<package>EventsV1` for its Kafka events, so names
// never collide across files (each generated file also exports protobufPackage, DeepPartial, ...).
// `events` maps each Kafka event message to its topic and binary codec.
export * as commonV1 from './gen/cardlens/common/v1/common';
export * as accountsV1 from './gen/cardlens/accounts/v1/accounts';
export * as billingV1 from './gen/cardlens/billing/v1/billing';
export * as billingEventsV1 from './gen/cardlens/billing/v1/events';
export * as billingSandboxV1 from './gen/cardlens/billing/v1/sandbox';
export * as scansV1 from './gen/cardlens/scans/v1/scans';
export * as scansEventsV1 from './gen/cardlens/scans/v1/events';
export * as gradingV1 from './gen/cardlens/grading/v1/grading';
export * as valuationV1 from './gen/cardlens/valuation/v1/valuation';
export * as valuationEventsV1 from './gen/cardlens/valuation/v1/events';
export * as inferenceV1 from './gen/cardlens/inference/v1/inference';
export { Timestamp } from './gen/google/protobuf/timestamp';
export { timestampFromDate, dateFromTimestamp, timestampFromIso, isoFromTimestamp, isoOrNull } from './timestamp';
export { events, type EventContract } from './events';
export { SCAN_MODULES_BY_NAME, scanModuleByName, scanModuleName, type ScanModuleName } from './scan-modules';
export { SCAN_IMAGE_LIMITS, photoTooSmallDetail } from './image-limits';
export { ASPECTS, gradingAssessment, type Aspect, type GradingAssessment } from './grading-assessed';
export {
  REPORT_LINK_DEFAULT_TTL_DAYS,
  REPORT_LINK_MAX_TTL_DAYS,
  REPORT_TOKEN_PATTERN,
  newReportToken,
  reportKindOf,
  reportLinkDays,
  reportLinkExpiry,
  type ReportKind,
} from './report-links';
