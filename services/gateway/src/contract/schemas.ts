// The REST contract's data shapes, the one source of truth: openapi/openapi.yaml is generated from these
// (scripts/generate-openapi.ts), routes validate requests with them and the view builders are typed by them.
// `.meta({ id })` names a component (#/components/schemas/<id>); other meta keys (description, example, and the
// JSON Schema keywords zod has no method for: if/then/else, discriminator, uniqueItems, format annotations) are
// copied into the document as they are.
import { z } from 'zod';
import { AppError, errorTable, type ErrorCode as ErrorCodeKey } from '@cardlens/errors';
import { REPORT_LINK_MAX_TTL_DAYS } from '@cardlens/contracts';
import { checkGradeModules, parseModules } from './modules';
import { withErrors } from './validate';

/** The date-time format as an annotation only (responses carry ISO 8601 strings; requests take none). */
const dateTime = () => z.string().meta({ format: 'date-time' });

// ---------------------------------------------------------------- problems

export const ErrorCode = z
  .enum(Object.keys(errorTable) as [ErrorCodeKey, ...ErrorCodeKey[]])
  .meta({ id: 'ErrorCode', description: 'Stable machine-readable error code (see the `Errors` tag and `x-error-codes`).' });

export const Problem = z
  .object({
    type: z.string().regex(/\/api-docs\/errors#[a-z_]+$/).meta({ description: '`{base_url}/api-docs/errors#<code>`' }),
    title: z.string(),
    status: z.int().min(400).max(599).meta({ description: 'HTTP status.' }),
    detail: z.string(),
    code: ErrorCode,
    requestId: z
      .string()
      .regex(/^[0-9a-f]{32}$/)
      .meta({ description: "The request's id, as in the `X-Request-Id` response header (its W3C trace id); quote it when reporting a problem." })
      .optional(),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem record. All five members are required; some codes add extension members.' });
export type Problem = z.output<typeof Problem>;

/**
 * A problem record restricted to some codes of errorTable, all of one HTTP status (taken from the table, so the
 * document cannot disagree with what the gateway sends). `extras` are the extension members those codes add.
 */
export function problem<const C extends ErrorCodeKey, const E extends z.ZodRawShape = Record<never, never>>(
  codes: readonly [C, ...C[]],
  extras?: E,
) {
  const status = problemStatus(codes);
  return Problem.and(
    z.object({
      // Optional here because Problem already requires them; this part only narrows their values.
      status: z.literal(status).optional(),
      code: (codes.length === 1 ? z.literal(codes[0]) : z.enum(codes as readonly [C, ...C[]])).optional(),
      ...(extras ?? ({} as E)),
    }),
  );
}

/** The one HTTP status of a set of codes; throws where they disagree (one response documents one status). */
export function problemStatus(codes: readonly ErrorCodeKey[]): number {
  const statuses = new Set(codes.map((code) => errorTable[code].httpStatus));
  if (statuses.size !== 1) throw new Error(`codes ${codes.join(', ')} do not share one HTTP status`);
  return [...statuses][0]!;
}

// ---------------------------------------------------------------- components

export const ProtectedResourceMetadata = z.object({
  resource: z.url(),
  resource_name: z.string().optional(),
  resource_documentation: z.url().optional(),
  bearer_methods_supported: z.array(z.literal("header")),
  cardlens_api_key_registration: z.url().meta({ description: 'Where an agent registers for a key (POST).' }).optional(),
}).meta({ id: 'ProtectedResourceMetadata' });
export type ProtectedResourceMetadata = z.output<typeof ProtectedResourceMetadata>;

export const ShareReportRequest = z.strictObject({
  expiresInDays: z.int().min(1).max(REPORT_LINK_MAX_TTL_DAYS).meta({ description: 'Lifetime of the link in days; default 30.' }).optional(),
}).meta({ id: 'ShareReportRequest' });
export type ShareReportRequest = z.output<typeof ShareReportRequest>;

export const ReportLink = z.object({
  url: z.url().meta({ description: 'The report page, /r/{token}: opens without an API key.' }),
  expiresAt: dateTime().nullable(),
  createdAt: dateTime().nullable(),
}).meta({ id: 'ReportLink' });
export type ReportLink = z.output<typeof ReportLink>;

export const ProblemCheckoutNotFound = problem(["checkout_not_found", "not_found"]).meta({ id: 'ProblemCheckoutNotFound' });
export type ProblemCheckoutNotFound = z.output<typeof ProblemCheckoutNotFound>;

export const ProblemNotFound = problem(["not_found"]).meta({ id: 'ProblemNotFound' });
export type ProblemNotFound = z.output<typeof ProblemNotFound>;

export const ProblemInvalidBody = problem(["invalid_body"]).meta({ id: 'ProblemInvalidBody' });
export type ProblemInvalidBody = z.output<typeof ProblemInvalidBody>;

export const ProblemUnsupportedMediaType = problem(["unsupported_media_type"]).meta({ id: 'ProblemUnsupportedMediaType' });
export type ProblemUnsupportedMediaType = z.output<typeof ProblemUnsupportedMediaType>;

export const InsufficientCreditsProblem = problem(["insufficient_credits"], { creditsRemaining: z.int().min(0).meta({ description: 'Current prepaid balance.' }), purchaseUrl: z.string().regex(/\/v1\/credits\/packs$/).meta({ description: 'Where to buy credits: `/v1/credits/packs`.' }) }).meta({ description: '`insufficient_credits` adds `creditsRemaining` and `purchaseUrl`.', id: 'InsufficientCreditsProblem' });
export type InsufficientCreditsProblem = z.output<typeof InsufficientCreditsProblem>;

export const Tier = z.enum(["anonymous", "registered", "paid"]).meta({ id: 'Tier' });
export type Tier = z.output<typeof Tier>;

export const ApiKey = z.string().regex(/^clk_[A-Za-z0-9]{40}$/).meta({ description: '`clk_` followed by 40 characters of `[A-Za-z0-9]`.', id: 'ApiKey' });
export type ApiKey = z.output<typeof ApiKey>;

/** An owner's contact email (registration's contactEmail, MCP start_grading_trial's ownerEmail). */
export const ContactEmail = z.email().max(256);

export const AgentRegistrationRequest = z.object({
  // As strict as accounts' registration rules (services/accounts/src/domain/registration-rules.ts).
  name: z
    .string()
    .trim()
    .min(1)
    .max(100)
    // eslint-disable-next-line no-control-regex -- the pattern is about control characters
    .regex(/^[^\u0000-\u001f\u007f]*$/, 'name must not contain control characters')
    .meta({ description: 'Display name: 1-100 characters after trimming, no control characters.' }),
  contactEmail: ContactEmail.nullable().meta({ description: 'Makes the tier `registered` and grants 3 trial credits instead of 1. Needed for subscriptions.' }).optional(),
  operatorUrl: z
    .url({ protocol: /^https?$/, hostname: /.+/ })
    .max(512)
    .regex(/^[Hh][Tt][Tt][Pp][Ss]?:\/\//)
    .meta({ format: 'uri' })
    .nullable()
    .meta({ description: 'Absolute http(s) URL of the operator.' })
    .optional(),
  commercialOnly: z.boolean().default(false).meta({ description: 'true means no prepaid demo credits; a grading trial starts only after the owner completes checkout.' }).optional(),
}).meta({ id: 'AgentRegistrationRequest' });
export type AgentRegistrationRequest = z.output<typeof AgentRegistrationRequest>;

export const AgentRegistrationResponse = z.object({
  agentId: z.int(),
  apiKey: ApiKey,
  tier: z.enum(["anonymous", "registered"]),
  credits: z.int().min(0).meta({ description: 'Trial credits granted; 0 if the daily trial pool is exhausted or commercialOnly.' }),
  docsUrl: z.string(),
  message: z.string(),
  note: z.string().nullable().meta({ description: 'Present only when the daily trial pool was exhausted; explains how to buy credits.' }).optional(),
}).meta({ id: 'AgentRegistrationResponse' });
export type AgentRegistrationResponse = z.output<typeof AgentRegistrationResponse>;

export const PlanKey = z.enum(["grading_5000", "grading_10000"]).meta({ description: '`grading_5000` (5,000 grades per month, USD 250.00) or `grading_10000` (10,000, USD 449.00).', id: 'PlanKey' });
export type PlanKey = z.output<typeof PlanKey>;

export const SubscriptionStatus = z.enum(["none", "checkout_pending", "trialing", "active", "past_due", "cancelled", "expired"]).meta({ description: 'See the `Subscriptions` tag for the meaning of each value.', id: 'SubscriptionStatus' });
export type SubscriptionStatus = z.output<typeof SubscriptionStatus>;

export const NullableDateTime = dateTime().nullable().meta({ id: 'NullableDateTime' });
export type NullableDateTime = z.output<typeof NullableDateTime>;

/**
 * Why an account gets no trial although it never had one (one trial per person: its owner's email or its card
 * already had one on another account). A problem record embedded in a successful answer, not an error response.
 */
export const TrialRefusal = problem(['trial_already_used']).meta({
  id: 'TrialRefusal',
  description: 'RFC 9457 problem record (`trial_already_used`) embedded in a 200 answer: the trial is refused and the plan is charged at once, as for a returning subscriber.',
});

export const GradingSubscription = z.object({
  plan: PlanKey.nullable(),
  status: SubscriptionStatus,
  unlimitedGrading: z.boolean().meta({ description: 'true during an active trial.' }),
  trialEndsAtUtc: NullableDateTime,
  gradesRemaining: z.int().min(0).nullable(),
  monthlyAllowance: z.int().min(0).nullable(),
  currentPeriodStartUtc: NullableDateTime,
  currentPeriodEndUtc: NullableDateTime,
  cancelAtPeriodEnd: z.boolean(),
  pendingPlan: PlanKey.nullable(),
  pendingPlanEffectiveAtUtc: NullableDateTime,
  gradesUsed: z.int().min(0).nullable().meta({ description: 'Grades committed in the current paid period; null during the trial and without a paid period.' }),
  accessEndsAtUtc: NullableDateTime.meta({ description: 'The trial end or the paid period end, when grading access ends unless a payment renews it; null without access.' }),
  trialRefusal: TrialRefusal.nullable().meta({ description: "Set when the account's trial was refused after checkout because the card already had a trial on another account (one trial per person): the trial was ended at once, the plan charged, and no trial access is given. null otherwise." }),
}).meta({ description: `Subscription grade balance. \`gradesRemaining\` is null only while \`unlimitedGrading\` is true (null means
unlimited, not zero). \`monthlyAllowance\` is the plan's grades per month (null without a plan);
\`currentPeriodStartUtc\`/\`currentPeriodEndUtc\` are the paid period (null during the trial and without a
paid period). \`pendingPlan\`/\`pendingPlanEffectiveAtUtc\` describe a scheduled plan change. \`gradesUsed\` counts
the grades committed in the current paid period; \`accessEndsAtUtc\` is when grading access ends unless a
payment renews it.
`, if: { properties: { unlimitedGrading: { const: true } } }, then: { properties: { gradesRemaining: { type: 'null' } } }, else: { properties: { gradesRemaining: { type: 'integer' } } }, id: 'GradingSubscription' });
export type GradingSubscription = z.output<typeof GradingSubscription>;

export const AgentIdentity = z.object({
  agentId: z.int(),
  name: z.string(),
  tier: Tier,
  credits: z.int().min(0).meta({ description: 'Prepaid credit balance.' }),
  keyPrefix: z.string().regex(/^clk_[A-Za-z0-9]{8}$/).nullable().meta({ description: 'First 12 characters of the active key (`clk_` + 8).' }).optional(),
  createdAt: dateTime(),
  balances: z.object({
  prepaidCredits: z.int().min(0),
  gradingSubscription: GradingSubscription,
}).optional(),
}).meta({ id: 'AgentIdentity' });
export type AgentIdentity = z.output<typeof AgentIdentity>;

export const Module = z.enum(["identify", "grade", "market", "full"]).meta({ id: 'Module' });
export type Module = z.output<typeof Module>;

export const ModulesValue = z.xor([z.array(Module).min(1).meta({ uniqueItems: true }), z.string().min(1).meta({ examples: ['identify,grade', 'identify grade', 'full'] })]).meta({ description: `An array of modules, or one string (a comma or space separated list, or \`full\`). \`full\` cannot be combined
with other values (\`invalid_modules\`); \`deep\` is rejected (\`deep_unsupported\`).
`, id: 'ModulesValue' });
export type ModulesValue = z.output<typeof ModulesValue>;

// zod writes a pattern in place of the url format: the format is restated in meta.
export const ImageUrl = z.url().regex(/^[Hh][Tt][Tt][Pp][Ss]?:\/\//).meta({ format: 'uri', description: 'Publicly fetchable absolute http(s) URL of a JPEG or PNG, at most 15 MB. Never put API keys in it.', id: 'ImageUrl' });
export type ImageUrl = z.output<typeof ImageUrl>;

/** Why a module list is refused: parseModules' exact code and detail (deep_unsupported, invalid_modules). */
function modulesError(value: unknown): AppError {
  try {
    parseModules(value);
  } catch (error) {
    if (error instanceof AppError) return error;
  }
  return new AppError('invalid_modules', 'modules must be an array of module names or one string listing them.');
}

/** Why a grade request's modules are refused: subscription_grading_only for another module, else invalid_modules. */
function gradeModulesError(value: unknown): AppError {
  try {
    checkGradeModules(value);
  } catch (error) {
    if (error instanceof AppError) return error;
  }
  return new AppError('invalid_modules', 'modules is optional on POST /v1/grades; when given it must be "grade" or ["grade"].');
}

const URL_HINT = 'a publicly fetchable absolute http(s) URL of a JPEG or PNG';

export const ImageFile = z
  .instanceof(Uint8Array)
  // A file part of a multipart body: validated as bytes, documented as a binary string.
  .meta({ type: 'string', contentMediaType: 'application/octet-stream', format: 'binary', description: 'JPEG or PNG, at most 15 MB.', id: 'ImageFile' });
export type ImageFile = z.output<typeof ImageFile>;

export const ScanCreateJson = z.object({
  frontImageUrl: withErrors(ImageUrl.clone(), { missing: 'missing_front_image', type: 'invalid_body', invalid: 'invalid_image_url', hint: URL_HINT }),
  backImageUrl: withErrors(ImageUrl.meta({ description: 'Optional (see the operation description for what grading reports without it).' }), { type: 'invalid_body', invalid: 'invalid_image_url', hint: URL_HINT }).nullable().optional(),
  modules: withErrors(ModulesValue.clone(), { invalid: modulesError }),
}).meta({ id: 'ScanCreateJson' });
export type ScanCreateJson = z.output<typeof ScanCreateJson>;

export const ScanCreateMultipart = z.object({
  front: withErrors(ImageFile.clone(), { missing: 'missing_front_image', hint: 'send it in the multipart file field "front"' }),
  back: ImageFile.meta({ description: 'Optional (see the operation description for what grading reports without it).' }).optional(),
  modules: withErrors(z.string().meta({ description: 'Comma or space separated list, or `full`.', examples: ['identify,grade', 'identify grade', 'full'] }), { invalid: modulesError }),
}).meta({ id: 'ScanCreateMultipart' });
export type ScanCreateMultipart = z.output<typeof ScanCreateMultipart>;

export const ScanAccepted = z.object({
  id: z.int().meta({ description: 'Scan id.' }),
  status: z.literal("queued"),
  modules: z.array(Module),
  creditsCharged: z.int().min(0),
  creditsRemaining: z.int().min(0),
  links: z.object({
  self: z.string().regex(/^\/v1\/scans\/[0-9]+$/).meta({ description: '`/v1/scans/<scan_id>`' }),
}),
}).meta({ id: 'ScanAccepted' });
export type ScanAccepted = z.output<typeof ScanAccepted>;

export const ScanInFlight = z.object({
  id: z.int(),
  status: z.enum(["queued", "processing"]),
  progressPercent: z.int().min(0).max(100),
  statusMessage: z.string().nullable().optional(),
}).meta({ id: 'ScanInFlight' });
export type ScanInFlight = z.output<typeof ScanInFlight>;

export const ScanFailed = z.object({
  id: z.int(),
  status: z.literal("failed"),
  error: z.string().meta({ description: 'Intentionally generic (worker details are never exposed), except when no card was found in the front photo: then it says how to retake the photo.' }),
  progressPercent: z.int().min(0).max(100).optional(),
  statusMessage: z.string().optional(),
}).meta({ id: 'ScanFailed' });
export type ScanFailed = z.output<typeof ScanFailed>;

export const IdentificationCandidate = z.object({
  name: z.string(),
  subject: z.string().optional(),
  category: z.string().optional(),
  year: z.string().optional(),
  set: z.string().optional(),
  number: z.string().optional(),
  parallel: z.string().optional(),
  printRun: z.string().optional(),
  confidence: z.number().min(0).max(1),
}).meta({ id: 'IdentificationCandidate' });
export type IdentificationCandidate = z.output<typeof IdentificationCandidate>;

export const Identification = z.object({
  name: z.string().meta({ description: 'Full card title.' }),
  subject: z.string().meta({ description: 'Player or character.' }),
  category: z.string().meta({ description: 'Game or sport category as in the catalog, capitalised, e.g. `Pokemon`, `Baseball`, `Basketball`; empty when unknown.' }),
  year: z.string(),
  set: z.string(),
  number: z.string(),
  parallel: z.string().meta({ description: 'Variant name; empty or `Base` for the base card.' }),
  printRun: z.string().regex(/^(\/[0-9]+)?$/).meta({ description: 'Serial-numbered print run if visible, form `/<n>`; may be empty.' }),
  confidence: z.number().min(0).max(1).meta({ description: 'Confidence of the identification.' }),
  inCatalog: z.boolean().meta({ description: 'Whether the card matched an entry of the catalog (TCGdex / JunkWaxData).' }),
  candidates: z.array(IdentificationCandidate).meta({ description: 'Other plausible catalog matches, best first (may be empty).' }),
}).meta({ description: `All spec fields are strings (empty when unknown). CardLens adds \`confidence\`, \`inCatalog\` and \`candidates\`.
`, id: 'Identification' });
export type Identification = z.output<typeof Identification>;

export const Score = z.number().min(1).max(10).meta({ id: 'Score' });
export type Score = z.output<typeof Score>;

export const AssessedScore = Score.nullable().meta({ description: 'A sub-grade (1-10), or null where that aspect was not assessed (`notAssessedReasons` says why).', id: 'AssessedScore' });
export type AssessedScore = z.output<typeof AssessedScore>;

export const SubGrades = z.object({
  centering: AssessedScore,
  corners: AssessedScore,
  edges: AssessedScore,
  surface: AssessedScore,
}).meta({ description: `The four sub-grades, each null where its aspect was assessed on no photographed side (a number is always a
measurement, never a placeholder).
`, id: 'SubGrades' });
export type SubGrades = z.output<typeof SubGrades>;

export const CenteringRatio = z.object({
  leftRight: z.string().regex(/^[0-9]{1,3}\/[0-9]{1,3}$/).meta({ examples: ['56/44'] }),
  topBottom: z.string().regex(/^[0-9]{1,3}\/[0-9]{1,3}$/).meta({ examples: ['52/48'] }),
  left: z.number().min(0).max(100),
  right: z.number().min(0).max(100),
  top: z.number().min(0).max(100),
  bottom: z.number().min(0).max(100),
}).meta({ description: `Border ratios of one side. \`left\` + \`right\` = 100 and \`top\` + \`bottom\` = 100 (percent of the combined
border width); \`leftRight\` and \`topBottom\` are the same values rounded, as \`"<left>/<right>"\`.
`, id: 'CenteringRatio' });
export type CenteringRatio = z.output<typeof CenteringRatio>;

export const CenteringReport = z.object({
  front: CenteringRatio.nullable().meta({ description: "null where the front's centering was not assessed (`front_centering` in `notAssessed`)." }),
  back: CenteringRatio.nullable().meta({ description: "null when no back image was submitted, or the back's centering was not assessed." }),
}).meta({ id: 'CenteringReport' });
export type CenteringReport = z.output<typeof CenteringReport>;

export const SubGradeConfidence = z.object({
  centering: z.number().min(0).max(1).nullable(),
  corners: z.number().min(0).max(1).nullable(),
  edges: z.number().min(0).max(1).nullable(),
  surface: z.number().min(0).max(1).nullable(),
}).meta({ description: 'Confidence (0-1) of each sub-grade; lowered when the back image is missing; null where the sub-grade is null.', id: 'SubGradeConfidence' });
export type SubGradeConfidence = z.output<typeof SubGradeConfidence>;

export const Defect = z.object({
  kind: z.string().meta({ description: 'Defect kind: `corner_wear`, `edge_wear`, `scratch`, `dent`, `crease`, `stain`, `print_defect` or `other`.' }),
  side: z.enum(["front", "back"]),
  location: z.string().meta({ description: 'Where on the side, e.g. `top-left corner`, `bottom edge`, `center`.' }),
  severity: z.enum(["minor", "moderate", "major"]),
  description: z.string(),
}).meta({ id: 'Defect' });
export type Defect = z.output<typeof Defect>;

export const NotAssessedItem = z.enum(["front_centering", "front_corners", "front_edges", "front_surface", "back_centering", "back_corners", "back_edges", "back_surface"]).meta({ id: 'NotAssessedItem' });
export type NotAssessedItem = z.output<typeof NotAssessedItem>;

export const SideSubGrades = z.object({
  centering: AssessedScore,
  corners: AssessedScore,
  edges: AssessedScore,
  surface: AssessedScore,
}).meta({ description: 'Sub-grades of one side of the card; null where that aspect of that side was not assessed.', id: 'SideSubGrades' });
export type SideSubGrades = z.output<typeof SideSubGrades>;

export const EngineVersions = z.object({
  version: z.string().meta({ examples: ['cardlens-vision-29'] }),
  rubricVersion: z.string().meta({ examples: ['1.2.0'] }),
}).meta({ description: `What produced the grading, stored with it: the vision engine's version and the grading rubric's (GRADING.md).
Empty strings for results stored before versions were recorded.
`, id: 'EngineVersions' });
export type EngineVersions = z.output<typeof EngineVersions>;

export const ScanGrading = z.object({
  grade: Score.nullable().meta({ description: "Overall AI grade 1-10 from the aspects that were assessed, or null where the photos supported no aspect at all (every aspect of every photographed side is in `notAssessed`): no grade is given, the summary says why, and the grading part of the price is refunded (the scan's `refund`)." }),
  predictedGrade: Score.nullable().meta({ description: 'Predicted professional grade (integer 1-10), or null where the photos supported no aspect at all: nothing was measured, so nothing is predicted.' }),
  subGrades: SubGrades,
  summary: z.string(),
  justification: z.string().meta({ description: 'Written justification.' }),
  centering: CenteringReport,
  subGradeConfidence: SubGradeConfidence,
  defects: z.array(Defect),
  notAssessed: z.array(NotAssessedItem).meta({ uniqueItems: true }),
  notAssessedReasons: z.array(z.object({
  item: NotAssessedItem,
  reason: z.string().meta({ examples: ['the card spans 5.1 pixels per mm in the photo; 8 are needed to see wear of a few tenths of a mm'] }),
})).meta({ description: 'Why each entry of `notAssessed` was not assessed, in words, in the same order.' }),
  frontBack: z.object({
  front: SideSubGrades,
  back: SideSubGrades.nullable().meta({ description: 'null when no back image was submitted.' }),
}),
  engine: EngineVersions,
  links: z.object({
    overlay: z.string().regex(/^\/v1\/scans\/[0-9]+\/overlay$/).meta({ description: '`/v1/scans/<scan_id>/overlay` (PNG). Absent once the overlay is no longer kept (SCAN_BLOB_RETENTION_DAYS after the scan, 30 by default) or when none could be drawn.' }).optional(),
  }),
}).meta({ description: `AI condition grade (an estimate, not a certified grade). Spec fields: \`grade\`, \`predictedGrade\`, \`subGrades\`,
\`summary\`, \`justification\`. CardLens adds \`centering\` (ratios per side), \`subGradeConfidence\`, \`defects\`,
\`notAssessed\` (empty when everything was assessed; without a back image \`back_centering\`, \`back_corners\`,
\`back_edges\`, \`back_surface\`; an aspect the photo cannot support, e.g. \`front_corners\` when the card spans
too few pixels per mm, the photo is blurred, or the outline found is a slab's or sleeve's: such an aspect
never lowers the grade, its sub-grade, confidence and centering ratios are null (no placeholder number),
and the justification, summary and \`notAssessedReasons\` give the reason), \`frontBack\` (per-side
sub-grades) and \`links.overlay\`. Where nothing at all could be assessed, \`grade\` and \`predictedGrade\` are
null, and the scan's \`refund\` gives the credits returned for the grade that could not be given.
`, id: 'ScanGrading' });
export type ScanGrading = z.output<typeof ScanGrading>;

export const UsdAmount = z.number().gt(0).meta({ id: 'UsdAmount' });
export type UsdAmount = z.output<typeof UsdAmount>;

export const PriceSource = z.object({
  name: z.string().meta({ description: 'e.g. `TCGplayer market price`, `PriceCharting graded values of this card`.' }),
  asOf: z.string().meta({ format: 'date' }).meta({ description: 'Day of the newest figure used.' }),
  dataPoints: z.int().min(0).meta({ description: 'Days of market prices, table values or sales behind the estimate.' }),
  attribution: z.string().meta({ description: 'What to show beside the figure.' }),
}).meta({ id: 'PriceSource' });
export type PriceSource = z.output<typeof PriceSource>;

export const ValueEstimate = z.object({
  rawEstimate: UsdAmount.nullable().meta({ description: 'Ungraded value, USD; null = no coverage.' }),
  gradedEstimate: UsdAmount.nullable().meta({ description: 'Value at the predicted grade, USD; null = no coverage, or no grade predicted (nothing on the card could be assessed from the photos); `reasons` says which.' }),
  currency: z.literal("USD"),
  gradedValueSpread: z.array(z.object({
  grade: z.number().min(1).max(10),
  value: UsdAmount,
  confidence: z.enum(["High", "Medium", "Low"]),
})),
  reasons: z.array(z.string()).meta({ description: 'Human-readable reasons for null or low-confidence estimates (empty when none).' }),
  freshness: z.object({
  latestSaleDate: z.string().meta({ format: 'date' }).nullable().meta({ description: 'Date of the most recent comparable sale, or, for an estimate from a daily market-price feed, of the newest market price.' }),
  compCount: z.int().min(0).meta({ description: 'Number of comparable sales used, or of days with a market price (see `sources`).' }),
}),
  sampleData: z.boolean().meta({ description: `True when the comparable sales are CardLens's generated sample data (the demo deployment) rather than
market sales; the market section's \`context\` says so too. Always false for estimates from market
prices (\`sources.raw.name\` names the feed).
` }),
  printing: z.string().nullable().meta({ description: `The printing priced, as the marketplace names it (TCGplayer: \`Normal\`, \`Holofoil\`, \`Reverse Holofoil\`,
\`1st Edition Holofoil\`, ...), chosen from the identification's \`parallel\`. A printing the feed has no
price for is not priced as another: \`rawEstimate\` is null and \`reasons\` lists the priced printings.
` }),
  rawRange: z.object({
  low: UsdAmount,
  high: UsdAmount,
}).nullable().meta({ description: "The range the printing is offered at (the feed's listing low and high of its latest day); null when not known." }),
  sources: z.object({
  raw: PriceSource.nullable(),
  graded: PriceSource.nullable(),
}).meta({ description: `Where each figure comes from, with the day of its newest data point and how many figures stand
behind it. Show \`attribution\` wherever the value is shown. Raw values from the TCGplayer daily market
price (via tcgcsv.com); graded values from PriceCharting's graded values of the card where it lists
them, else a model fitted on those tables applied to the raw price; otherwise recorded sales (in the
demo: generated sample sales, named as such).
` }),
}).meta({ description: `Derived from cached market data (daily marketplace prices, graded price tables, recorded sales);
coverage and freshness vary, and \`sources\` says where each figure comes from and how old it is. A null
estimate means no coverage (never a zero value); \`reasons\` explains missing or weak estimates.
`, id: 'ValueEstimate' });
export type ValueEstimate = z.output<typeof ValueEstimate>;

export const MarketAnalysis = z.object({
  insights: z.string(),
  gradingRecommendation: z.enum(["grade", "neutral", "dont_grade"]).meta({ description: 'Whether professional grading looks worthwhile.' }),
  context: z.string().nullable(),
  trend: z.object({
  change30dPercent: z.number().nullable().meta({ description: 'Percent change over 30 days (of the median sale price, or of the daily market price, by `basis`).' }),
  change90dPercent: z.number().nullable().meta({ description: 'Sales basis only; null for a daily market price series.' }),
  salesLast30Days: z.int().min(0),
  salesLast90Days: z.int().min(0),
  basis: z.enum(["sales", "daily_market_price"]).meta({ description: 'What the trend is measured on; `daily_market_price` for cards priced from the TCGplayer feed.' }),
  priceDaysLast30Days: z.int().min(0).meta({ description: 'daily_market_price: days with a market price in the last 30.' }),
  volatility30dPercent: z.number().nullable().meta({ description: 'daily_market_price: standard deviation of daily log price changes scaled to 30 days, percent.' }),
}).meta({ description: 'Price trend of comparable sales; null where there is not enough data.' }),
}).meta({ id: 'MarketAnalysis' });
export type MarketAnalysis = z.output<typeof MarketAnalysis>;

export const ScanCompleted = z.object({
  id: z.int(),
  status: z.literal("completed"),
  modules: z.array(Module),
  completedAt: dateTime().nullable().optional(),
  identification: Identification,
  grading: ScanGrading.optional(),
  value: ValueEstimate.optional(),
  market: MarketAnalysis.optional(),
  links: z.object({
  self: z.string(),
  report: z.url().meta({ description: 'The live share link of the report page (see POST /v1/scans/{id}/report-link); absent once revoked or expired.' }).optional(),
}),
  reportExpiresAt: dateTime().nullable().meta({ description: 'When links.report stops working; null without a live link.' }),
  refund: z.object({
  credits: z.int().min(1),
  reason: z.string(),
}).meta({ description: `Present only where the paid grade could not be given (\`grading.grade\` is null: nothing on the card could
be assessed from the photos). The grading part of the scan's price was refunded to the credit balance,
once, as a ledger entry of its own: all of a \`grade\` scan's price (its identification comes free), and
what \`full\` costs above \`market\` (value and market are still given). \`identify\` and \`market\` scans are
never refunded this way.
` }).optional(),
}).meta({ description: `Only the sections for the requested and paid modules are present: \`identification\` always; \`grading\` iff
\`modules\` contains \`grade\` or \`full\`; \`value\` and \`market\` iff it contains \`market\` or \`full\`.
`, allOf: [{ if: { properties: { modules: { contains: { enum: ['grade', 'full'] } } } }, then: { required: ['grading'] }, else: { not: { required: ['grading'] } } }, { if: { properties: { modules: { contains: { enum: ['market', 'full'] } } } }, then: { required: ['value', 'market'] }, else: { allOf: [{ not: { required: ['value'] } }, { not: { required: ['market'] } }] } }], id: 'ScanCompleted' });
export type ScanCompleted = z.output<typeof ScanCompleted>;

export const ScanResult = z.xor([ScanInFlight, ScanFailed, ScanCompleted]).meta({ discriminator: { propertyName: 'status', mapping: { queued: '#/components/schemas/ScanInFlight', processing: '#/components/schemas/ScanInFlight', failed: '#/components/schemas/ScanFailed', completed: '#/components/schemas/ScanCompleted' } }, id: 'ScanResult' });
export type ScanResult = z.output<typeof ScanResult>;

export const ModulePrice = z.object({
  key: z.enum(["identify", "grade", "market", "full", "deep"]),
  credits: z.int().min(0),
  description: z.string(),
  available: z.boolean().meta({ description: 'false for `deep` (not available through this API).' }),
}).meta({ id: 'ModulePrice' });
export type ModulePrice = z.output<typeof ModulePrice>;

export const CreditPack = z.object({
  key: z.string().meta({ description: 'Used in `POST /v1/credits/purchase`.' }),
  displayName: z.string(),
  credits: z.int().min(1),
  priceUsd: z.number().gt(0),
}).meta({ id: 'CreditPack' });
export type CreditPack = z.output<typeof CreditPack>;

export const PricingResponse = z.object({
  modules: z.array(ModulePrice),
  packs: z.array(CreditPack),
  trial: z.object({
  anonymous: z.int().min(0),
  registered: z.int().min(0),
}),
  currencyNote: z.string(),
}).meta({ id: 'PricingResponse' });
export type PricingResponse = z.output<typeof PricingResponse>;

export const CreditPacksResponse = z.object({
  packs: z.array(CreditPack),
  purchase: z.string().meta({ description: 'How to purchase.' }),
  currencyNote: z.string(),
}).meta({ id: 'CreditPacksResponse' });
export type CreditPacksResponse = z.output<typeof CreditPacksResponse>;

export const PurchaseRequest = z.object({
  // Missing: billing's invalid_pack, with the valid keys; an unknown key is billing's to refuse the same way.
  pack: withErrors(z.string().regex(/^[a-z0-9_]+$/).meta({ description: 'A pack key (`GET /v1/credits/packs`), e.g. `starter`.', examples: ['starter', 'builder', 'scale'] }), {
    missing: 'invalid_pack',
    type: 'invalid_body',
    invalid: 'invalid_pack',
    hint: 'a pack key of GET /v1/credits/packs, e.g. starter',
  }),
  sharedPaymentToken: z.string().min(1).max(255).nullable().meta({ description: 'Preview programmatic rail; needs server-side enablement (501 `spt_not_enabled` otherwise). Not empty when given.' }).optional(),
}).meta({ id: 'PurchaseRequest' });
export type PurchaseRequest = z.output<typeof PurchaseRequest>;

export const CheckoutRailPurchase = z.object({
  checkoutUrl: z.url(),
  pack: z.string(),
  credits: z.int().min(1),
  priceUsd: z.number(),
  expiresAt: dateTime().meta({ description: 'About 24 h after creation.' }),
}).meta({ id: 'CheckoutRailPurchase' });
export type CheckoutRailPurchase = z.output<typeof CheckoutRailPurchase>;

export const TokenRailPurchase = z.object({
  status: z.enum(["succeeded"]),
  pack: z.string(),
  credits: z.int().min(1),
  priceUsd: z.number(),
  creditsRemaining: z.int().min(0),
  paymentIntentId: z.string(),
}).meta({ id: 'TokenRailPurchase' });
export type TokenRailPurchase = z.output<typeof TokenRailPurchase>;

export const PurchaseResponse = z.xor([CheckoutRailPurchase, TokenRailPurchase]).meta({ description: 'Discriminate on `checkoutUrl` (checkout rail) vs `paymentIntentId` (token rail).', id: 'PurchaseResponse' });
export type PurchaseResponse = z.output<typeof PurchaseResponse>;

export const PlanRequest = z.object({
  // Every plan mistake is invalid_plan, with the valid keys in the detail.
  plan: withErrors(PlanKey.clone(), { invalid: 'invalid_plan', hint: `valid plans: ${PlanKey.options.join(', ')}` }),
}).meta({ description: `Body of checkout and change-plan. \`plan\` is the only field (others are ignored). An unknown or missing plan
gives 400 \`invalid_plan\` with the valid keys in \`detail\`.
`, id: 'PlanRequest' });
export type PlanRequest = z.output<typeof PlanRequest>;

export const Plan = z.object({
  key: PlanKey,
  displayName: z.string(),
  gradesPerMonth: z.int().min(1),
  priceUsd: z.number().gt(0),
  currency: z.literal("USD"),
  trialDays: z.int().min(0).meta({ description: 'Trial length for a new account (7).' }),
  checkoutAvailable: z.boolean().meta({ description: 'false while billing is unavailable.' }),
}).meta({ id: 'Plan' });
export type Plan = z.output<typeof Plan>;

export const PlansResponse = z.object({
  plans: z.array(Plan),
  note: z.string(),
}).meta({ id: 'PlansResponse' });
export type PlansResponse = z.output<typeof PlansResponse>;

export const SubscriptionBalance = z.object({
  prepaidCredits: z.int().min(0),
}).and(GradingSubscription).meta({ description: '`GET /v1/subscriptions/me`: `prepaidCredits` plus every `GradingSubscription` field.', id: 'SubscriptionBalance' });
export type SubscriptionBalance = z.output<typeof SubscriptionBalance>;

export const CheckoutSessionResponse = z.object({
  action: z.literal("checkout"),
  plan: PlanKey,
  checkoutUrl: z.url().meta({ description: 'Hosted checkout for the owner (payment details are entered only there).' }),
  expiresAt: dateTime().meta({ description: 'About 24 h after creation.' }),
  trialDays: z.int().min(0).meta({ description: '7 for a new account, 0 for a returning subscriber or a refused trial (charged immediately).' }),
  trialRefusal: TrialRefusal.nullable().meta({ description: "Set when the account never had a trial but its owner's email (normalised) already had one on another account: `trialDays` is 0 and the plan is charged at checkout. null otherwise." }),
  message: z.string(),
}).meta({ id: 'CheckoutSessionResponse' });
export type CheckoutSessionResponse = z.output<typeof CheckoutSessionResponse>;

export const PortalLinkResponse = z.object({
  action: z.literal("portal"),
  portalUrl: z.url().meta({ description: 'Short-lived billing portal link.' }),
  message: z.string(),
}).meta({ id: 'PortalLinkResponse' });
export type PortalLinkResponse = z.output<typeof PortalLinkResponse>;

export const PlanChangeScheduledResponse = z.object({
  action: z.literal("scheduled"),
  plan: PlanKey,
  pendingPlan: PlanKey,
  effectiveAtUtc: dateTime().meta({ description: 'Next renewal (or trial end).' }),
  message: z.string(),
}).meta({ id: 'PlanChangeScheduledResponse' });
export type PlanChangeScheduledResponse = z.output<typeof PlanChangeScheduledResponse>;

export const CheckoutResponse = z.xor([CheckoutSessionResponse, PortalLinkResponse, PlanChangeScheduledResponse]).meta({ discriminator: { propertyName: 'action', mapping: { checkout: '#/components/schemas/CheckoutSessionResponse', portal: '#/components/schemas/PortalLinkResponse', scheduled: '#/components/schemas/PlanChangeScheduledResponse' } }, id: 'CheckoutResponse' });
export type CheckoutResponse = z.output<typeof CheckoutResponse>;

export const CancelResponse = z.object({
  status: SubscriptionStatus,
  plan: PlanKey,
  cancelAtPeriodEnd: z.literal(true),
  accessEndsAtUtc: dateTime().meta({ description: 'Trial or period deadline; access continues until then.' }),
  message: z.string(),
}).meta({ id: 'CancelResponse' });
export type CancelResponse = z.output<typeof CancelResponse>;

export const SandboxCardForm = z.object({
  card: z
    .string()
    .regex(/^(4242\d{12}|4000\d{8}0341)$/, { error: 'card must be a sandbox test card: 4242424242424242 or 4000000000000341 (or another 16-digit number of the same shape)' })
    .meta({ description: '`4242424242424242` pays; `4000000000000341` attaches but every charge declines. Other 16-digit numbers of the same shapes (`4242` then any 12 digits; `4000`, any 8, then `0341`) behave alike and are other cards with their own fingerprints, to try several people (one trial per card).' })
    .optional(),
}).meta({ description: "A sandbox form's test card choice (sandbox pages only; never real card details).", id: 'SandboxCardForm' });
export type SandboxCardForm = z.output<typeof SandboxCardForm>;

/** The portal's card form: `card` required. */
export const SandboxCardUpdateForm = SandboxCardForm.required();

export const IdempotencyKey = withErrors(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).meta({ id: 'IdempotencyKey' }), {
  missing: 'missing_idempotency_key',
  invalid: 'invalid_idempotency_key',
  hint: '1-64 characters of A-Z, a-z, 0-9, "_" and "-"',
});
export type IdempotencyKey = z.output<typeof IdempotencyKey>;

export const GradeCreateMultipart = z.object({
  front: withErrors(ImageFile.clone(), { missing: 'missing_front_image', hint: 'send it in the multipart file field "front"' }),
  back: withErrors(ImageFile.clone(), { missing: 'missing_back_image', hint: 'send it in the multipart file field "back" (a commercial grade needs both sides)' }),
  modules: withErrors(z.enum(["grade"]).meta({ description: 'Optional; any other module gives 403 `subscription_grading_only`.' }), { invalid: gradeModulesError }).optional(),
}).meta({ id: 'GradeCreateMultipart' });
export type GradeCreateMultipart = z.output<typeof GradeCreateMultipart>;

export const GradeCreateJson = z.object({
  frontImageUrl: withErrors(ImageUrl.clone(), { missing: 'missing_front_image', type: 'invalid_body', invalid: 'invalid_image_url', hint: URL_HINT }),
  backImageUrl: withErrors(ImageUrl.clone(), { missing: 'missing_back_image', type: 'invalid_body', invalid: 'invalid_image_url', hint: `${URL_HINT} (a commercial grade needs both sides)` }),
  modules: withErrors(z.xor([z.enum(["grade"]), z.array(z.enum(["grade"])).max(1)]).meta({ description: 'Optional; `grade` (a string or a one-item array). Any other module gives 403 `subscription_grading_only`.' }), { invalid: gradeModulesError }).optional(),
}).meta({ id: 'GradeCreateJson' });
export type GradeCreateJson = z.output<typeof GradeCreateJson>;

export const CommercialGrading = z.object({
  summary: z.string().meta({ description: 'One sentence on what limits the grade.' }).optional(),
  notAssessed: z.array(z.enum(["front_centering", "front_corners", "front_edges", "front_surface", "back_centering", "back_corners", "back_edges", "back_surface"])).meta({ description: 'Aspects the photos could not support (e.g. `back_corners` on a photo too small to see corner wear); their sub-grades rest on the other evidence.' }).optional(),
  notAssessedReasons: z.array(z.object({
  item: z.string(),
  reason: z.string(),
})).optional(),
  engine: EngineVersions.optional(),
  grade: Score,
  predictedGrade: Score.nullable().meta({ description: 'Predicted professional grade (integer 1-10), or null where the engine predicts none.' }),
  subGrades: SubGrades,
  front: SideSubGrades,
  back: SideSubGrades,
  centering: z.object({
  front: CenteringRatio.nullable(),
  back: CenteringRatio.nullable(),
}).meta({ description: 'Border ratios per side; null for a side whose centering was not assessed.' }),
}).meta({ description: `Numeric condition scores (AI estimates). \`front\`/\`back\` are the per-side sub-grades. A completed grade
always rests on at least one measured aspect (where none could be assessed the grade is refunded with 422
\`nothing_assessable\`); a sub-grade or centering of an aspect that was not assessed is null.
`, id: 'CommercialGrading' });
export type CommercialGrading = z.output<typeof CommercialGrading>;

export const GradeBase = z.object({
  id: z.int().min(1).meta({ description: 'Grade id, as in `GET /v1/grades/{id}`.' }),
  gradeId: z.string().regex(/^grade_[0-9]+$/).meta({ description: '`grade_<id>`.' }),
  status: z.enum(['processing', 'completed', 'refunded']),
  billingSource: z.literal(["trial", "subscription", null]).meta({ description: `\`trial\` (the 7-day unlimited trial, nothing deducted) or \`subscription\` (the paid monthly allowance).
\`null\` only while a \`processing\` grade is being reserved, and on a \`refunded\` grade that failed before
billing could reserve it.
` }),
  gradesCharged: z.literal([0, 1]).meta({ description: '1 on a paid allowance, 0 in the trial or when refunded.' }),
  creditsCharged: z.literal(0).meta({ description: 'Prepaid credits are never spent.' }),
  createdAt: dateTime(),
  completedAt: NullableDateTime,
  links: z.object({
    self: z.string().regex(/^\/v1\/grades\/[0-9]+$/).meta({ description: '`/v1/grades/<id>`' }),
    report: z.url().meta({ description: 'Completed grades: the live share link of the report page (see POST /v1/grades/{id}/report-link); absent once revoked or expired.' }).optional(),
  }),
}).meta({ id: 'GradeBase' });
export type GradeBase = z.output<typeof GradeBase>;

export const GradeProcessing = GradeBase.and(z.object({
  status: z.literal("processing").optional(),
  completedAt: z.null().optional(),
})).meta({ id: 'GradeProcessing' });
export type GradeProcessing = z.output<typeof GradeProcessing>;

export const GradeCompleted = GradeBase.and(z.object({
  status: z.literal("completed").optional(),
  billingSource: z.enum(["trial", "subscription"]).optional(),
  completedAt: dateTime().optional(),
  grading: CommercialGrading,
  reportExpiresAt: NullableDateTime.meta({ description: 'When links.report stops working; null without a live link.' }),
}).meta({ if: { properties: { billingSource: { const: 'trial' } } }, then: { properties: { gradesCharged: { const: 0 } } }, else: { properties: { gradesCharged: { const: 1 } } } })).meta({ id: 'GradeCompleted' });
export type GradeCompleted = z.output<typeof GradeCompleted>;

export const GradeRefunded = GradeBase.and(z.object({
  status: z.literal("refunded").optional(),
  gradesCharged: z.literal(0).optional(),
  completedAt: z.null().optional(),
  refundedAt: dateTime(),
  error: z.string().meta({ description: 'Generic; use a new Idempotency-Key to retry.' }),
})).meta({ id: 'GradeRefunded' });
export type GradeRefunded = z.output<typeof GradeRefunded>;

export const GradeResult = z.xor([GradeProcessing, GradeCompleted, GradeRefunded]).meta({ discriminator: { propertyName: 'status', mapping: { processing: '#/components/schemas/GradeProcessing', completed: '#/components/schemas/GradeCompleted', refunded: '#/components/schemas/GradeRefunded' } }, id: 'GradeResult' });
export type GradeResult = z.output<typeof GradeResult>;

export const ReadinessChecks = z.record(z.string(), z.enum(["ok", "fail", "degraded"])).meta({ id: 'ReadinessChecks' });
export type ReadinessChecks = z.output<typeof ReadinessChecks>;

export const JsonRpcRequest = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string(), z.int()]).meta({ description: 'Absent for notifications.' }).optional(),
  method: z.string().meta({ examples: ['initialize', 'tools/list', 'tools/call'] }),
  params: z.record(z.string(), z.unknown()).optional(),
}).meta({ id: 'JsonRpcRequest' });
export type JsonRpcRequest = z.output<typeof JsonRpcRequest>;

export const JsonRpcResponse = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string(), z.int()]).nullable().optional(),
  result: z.record(z.string(), z.unknown()).optional(),
  error: z.object({
  code: z.int(),
  message: z.string(),
  data: z.unknown().optional(),
}).optional(),
}).meta({ oneOf: [{ required: ['result'] }, { required: ['error'] }], id: 'JsonRpcResponse' });
export type JsonRpcResponse = z.output<typeof JsonRpcResponse>;

