import { status as GrpcStatus } from '@grpc/grpc-js';

/**
 * The ONE table of error codes a client can see. Every service throws AppError with one of these codes;
 * the gRPC layer carries the code across hops and the gateway renders it as RFC 9457 problem+json.
 * Codes are stable API: add new ones, never rename.
 */
export const errorTable = {
  // 400: bad input. The spec's codes first, then the ones we designed for its "not shown" outcomes.
  missing_front_image: { httpStatus: 400, grpcStatus: GrpcStatus.INVALID_ARGUMENT, title: 'Front image missing' },
  missing_back_image: { httpStatus: 400, grpcStatus: GrpcStatus.INVALID_ARGUMENT, title: 'Back image missing' },
  invalid_image_url: { httpStatus: 400, grpcStatus: GrpcStatus.INVALID_ARGUMENT, title: 'Invalid image URL' },
  invalid_modules: { httpStatus: 400, grpcStatus: GrpcStatus.INVALID_ARGUMENT, title: 'Invalid modules' },
  deep_unsupported: { httpStatus: 400, grpcStatus: GrpcStatus.INVALID_ARGUMENT, title: 'Deep scans are not available through this API' },
  image_too_large: { httpStatus: 400, grpcStatus: GrpcStatus.INVALID_ARGUMENT, title: 'Image too large' },
  invalid_image: { httpStatus: 400, grpcStatus: GrpcStatus.INVALID_ARGUMENT, title: 'Invalid image' },
  invalid_idempotency_key: { httpStatus: 400, grpcStatus: GrpcStatus.INVALID_ARGUMENT, title: 'Invalid Idempotency-Key' },
  missing_idempotency_key: { httpStatus: 400, grpcStatus: GrpcStatus.INVALID_ARGUMENT, title: 'Idempotency-Key required' },
  invalid_body: { httpStatus: 400, grpcStatus: GrpcStatus.INVALID_ARGUMENT, title: 'Invalid request body' },
  invalid_pack: { httpStatus: 400, grpcStatus: GrpcStatus.INVALID_ARGUMENT, title: 'Invalid credit pack' },
  invalid_plan: { httpStatus: 400, grpcStatus: GrpcStatus.INVALID_ARGUMENT, title: 'Invalid plan' },
  contact_email_required: { httpStatus: 400, grpcStatus: GrpcStatus.FAILED_PRECONDITION, title: 'Contact email required' },
  // 401 / 402 / 403
  invalid_api_key: { httpStatus: 401, grpcStatus: GrpcStatus.UNAUTHENTICATED, title: 'Invalid API key' },
  insufficient_credits: { httpStatus: 402, grpcStatus: GrpcStatus.FAILED_PRECONDITION, title: 'Insufficient credits' },
  spt_payment_incomplete: { httpStatus: 402, grpcStatus: GrpcStatus.FAILED_PRECONDITION, title: 'Payment not completed' },
  subscription_required: { httpStatus: 402, grpcStatus: GrpcStatus.FAILED_PRECONDITION, title: 'Subscription required' },
  grading_allowance_exhausted: { httpStatus: 402, grpcStatus: GrpcStatus.RESOURCE_EXHAUSTED, title: 'Monthly grading allowance exhausted' },
  subscription_grading_only: { httpStatus: 403, grpcStatus: GrpcStatus.PERMISSION_DENIED, title: 'Subscription covers grading only' },
  // 404 / 405
  not_found: { httpStatus: 404, grpcStatus: GrpcStatus.NOT_FOUND, title: 'Not found' },
  scan_not_found: { httpStatus: 404, grpcStatus: GrpcStatus.NOT_FOUND, title: 'Scan not found' },
  report_not_found: { httpStatus: 404, grpcStatus: GrpcStatus.NOT_FOUND, title: 'Report not found' },
  grade_not_found: { httpStatus: 404, grpcStatus: GrpcStatus.NOT_FOUND, title: 'Grade not found' },
  subscription_not_found: { httpStatus: 404, grpcStatus: GrpcStatus.NOT_FOUND, title: 'No renewable subscription' },
  checkout_not_found: { httpStatus: 404, grpcStatus: GrpcStatus.NOT_FOUND, title: 'Checkout session not found' },
  method_not_allowed: { httpStatus: 405, grpcStatus: GrpcStatus.UNIMPLEMENTED, title: 'Method not allowed' },
  // 409
  idempotency_conflict: { httpStatus: 409, grpcStatus: GrpcStatus.ABORTED, title: 'Idempotency key belongs to a refunded request' },
  idempotency_key_reused: { httpStatus: 409, grpcStatus: GrpcStatus.ALREADY_EXISTS, title: 'Idempotency key reused with a different request' },
  subscription_exists: { httpStatus: 409, grpcStatus: GrpcStatus.ALREADY_EXISTS, title: 'Subscription already exists' },
  checkout_pending: { httpStatus: 409, grpcStatus: GrpcStatus.ALREADY_EXISTS, title: 'A checkout is already pending' },
  // Embedded (not thrown) in a checkout answer or subscription view: one grading trial per person.
  trial_already_used: { httpStatus: 409, grpcStatus: GrpcStatus.ALREADY_EXISTS, title: 'Trial already used' },
  plan_change_conflict: { httpStatus: 409, grpcStatus: GrpcStatus.FAILED_PRECONDITION, title: 'Conflicting plan change' },
  grade_refunded: { httpStatus: 409, grpcStatus: GrpcStatus.ABORTED, title: 'Grade was refunded; use a new Idempotency-Key' },
  // 413 / 415
  request_timeout: { httpStatus: 408, grpcStatus: GrpcStatus.DEADLINE_EXCEEDED, title: 'Request not received in time' },
  body_too_large: { httpStatus: 413, grpcStatus: GrpcStatus.INVALID_ARGUMENT, title: 'Request body too large' },
  unsupported_media_type: { httpStatus: 415, grpcStatus: GrpcStatus.INVALID_ARGUMENT, title: 'Unsupported media type' },
  headers_too_large: { httpStatus: 431, grpcStatus: GrpcStatus.INVALID_ARGUMENT, title: 'Request headers too large' },
  // 422: the request was well formed but the photo cannot be graded.
  card_not_found: { httpStatus: 422, grpcStatus: GrpcStatus.FAILED_PRECONDITION, title: 'No card found in the image' },
  image_too_complex: { httpStatus: 422, grpcStatus: GrpcStatus.FAILED_PRECONDITION, title: 'Photo too complex to analyse' },
  nothing_assessable: { httpStatus: 422, grpcStatus: GrpcStatus.FAILED_PRECONDITION, title: 'Nothing on the card could be assessed' },
  // 429
  rate_limited: { httpStatus: 429, grpcStatus: GrpcStatus.RESOURCE_EXHAUSTED, title: 'Rate limit exceeded' },
  grade_in_flight: { httpStatus: 429, grpcStatus: GrpcStatus.RESOURCE_EXHAUSTED, title: 'A grade is already in flight' },
  // 5xx. A code with retryAfterSeconds is transient: a retry after that long can succeed, and every answer with it
  // carries Retry-After (a thrower may give a better figure).
  internal_error: { httpStatus: 500, grpcStatus: GrpcStatus.INTERNAL, title: 'Internal server error' },
  pricing_unavailable: { httpStatus: 500, grpcStatus: GrpcStatus.INTERNAL, title: 'Pricing unavailable', retryAfterSeconds: 5 },
  enqueue_failed: { httpStatus: 500, grpcStatus: GrpcStatus.UNAVAILABLE, title: 'Scan could not be queued', retryAfterSeconds: 5 },
  spt_not_enabled: { httpStatus: 501, grpcStatus: GrpcStatus.UNIMPLEMENTED, title: 'Shared payment token rail not enabled' },
  stripe_error: { httpStatus: 502, grpcStatus: GrpcStatus.UNAVAILABLE, title: 'Payment provider error' },
  spt_stripe_error: { httpStatus: 502, grpcStatus: GrpcStatus.UNAVAILABLE, title: 'Payment provider error' },
  billing_unavailable: { httpStatus: 503, grpcStatus: GrpcStatus.UNAVAILABLE, title: 'Billing unavailable', retryAfterSeconds: 5 },
  grader_unavailable: { httpStatus: 503, grpcStatus: GrpcStatus.UNAVAILABLE, title: 'Grader unavailable', retryAfterSeconds: 5 },
  grader_busy: { httpStatus: 503, grpcStatus: GrpcStatus.RESOURCE_EXHAUSTED, title: 'Grader busy', retryAfterSeconds: 2 },
  service_unavailable: { httpStatus: 503, grpcStatus: GrpcStatus.UNAVAILABLE, title: 'Service unavailable', retryAfterSeconds: 5 },
} as const satisfies Record<string, { httpStatus: number; grpcStatus: GrpcStatus; title: string; retryAfterSeconds?: number }>;

export type ErrorCode = keyof typeof errorTable;
export type ErrorEntry = (typeof errorTable)[ErrorCode];

export const errorCodes = Object.keys(errorTable) as ErrorCode[];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(errorTable, value);
}

/** The Retry-After a transient code's answers carry unless the thrower knows better; undefined for the others. */
export function defaultRetryAfterSeconds(code: ErrorCode): number | undefined {
  const entry = errorTable[code];
  return 'retryAfterSeconds' in entry ? entry.retryAfterSeconds : undefined;
}

export function lookupError(code: ErrorCode): ErrorEntry {
  return errorTable[code];
}
