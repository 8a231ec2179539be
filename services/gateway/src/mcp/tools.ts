import { randomUUID } from 'node:crypto';
import { AppError } from '@cardlens/errors';
import { z } from 'zod';
import { registerAgent, registrationInput } from '../application/agents';
import type { AppContext, Caller } from '../application/context';
import { getGrade, gradeCard, gradeUrls, gradeUrlsInput } from '../application/grades';
import { startCreditPurchase } from '../application/purchases';
import { getScan, submitScan } from '../application/scans';
import { IdempotencyKey, Module, PurchaseRequest } from '../contract/schemas';
import { parameters } from '../contract/operations';
import { checkCredits, gradingTrialInput, planInput, startGradingTrial, subscribeGrading } from '../application/subscriptions';
import { revokeReport, shareReport, type ReportSubject } from '../application/reports';
import { ShareReportRequest } from '../contract/schemas';

/**
 * The MCP tools. Each one calls the same use case as its REST twin (../application), so charges, limits,
 * idempotency and error codes are the REST API's; the input schemas are the use cases' own zod schemas.
 */
export interface ToolContext {
  app: AppContext;
  /** The caller, when the request carried a valid key. */
  caller: Caller | undefined;
  clientIp: string;
}

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  input: z.ZodObject;
  output: z.ZodObject;
  annotations: ToolAnnotations;
  /** Tools that create an account need no key; every other one does (invalid_api_key as a tool error). */
  needsKey: boolean;
  run(ctx: ToolContext, args: Record<string, unknown>, caller: Caller): Promise<{ result: Record<string, unknown>; summary: string }>;
}

// ------------------------------------------------------------------------------------------------ output shapes

// A sub-grade or centering of an aspect that was not assessed is null (the reason is in notAssessedReasons).
const subGrade = z.number().nullable();
const subGrades = z.object({ centering: subGrade, corners: subGrade, edges: subGrade, surface: subGrade });
const centering = z.looseObject({ leftRight: z.string(), topBottom: z.string() }).nullable();

/** 'centering 9, corners not assessed, ...' */
function subGradesText(grades: Record<string, number | null>): string {
  return Object.entries(grades).map(([aspect, value]) => `${aspect} ${value ?? 'not assessed'}`).join(', ');
}

const gradeView = z.looseObject({
  id: z.number().int(),
  gradeId: z.string(),
  status: z.enum(['processing', 'completed', 'refunded']),
  billingSource: z.enum(['trial', 'subscription']).nullable(),
  gradesCharged: z.number().int(),
  creditsCharged: z.literal(0),
  createdAt: z.string().nullable(),
  completedAt: z.string().nullable(),
  grading: z
    .looseObject({
      grade: z.number(),
      predictedGrade: z.number().nullable(),
      subGrades,
      front: subGrades,
      back: subGrades,
      centering: z.object({ front: centering, back: centering }),
      summary: z.string(),
    })
    .optional(),
  // A completed grade also links its report page (the REST view's links.report); open like the REST object.
  links: z.looseObject({ self: z.string(), report: z.string().optional() }),
});

const scanAccepted = z.looseObject({
  id: z.number().int(),
  status: z.literal('queued'),
  modules: z.array(z.string()),
  creditsCharged: z.number().int(),
  creditsRemaining: z.number().int(),
  links: z.object({ self: z.string() }),
});

/** One trial per person: why a trial is refused (a trial_already_used problem record), null when it is not. */
const trialRefusalView = z
  .looseObject({ type: z.string(), title: z.string(), status: z.number().int(), detail: z.string(), code: z.literal('trial_already_used') })
  .nullable()
  .describe("Set when the owner's email or card already had a trial on another account: no trial, the plan is charged at once.");

const subscriptionView = z.looseObject({
  plan: z.string().nullable(),
  status: z.enum(['none', 'checkout_pending', 'trialing', 'active', 'past_due', 'cancelled', 'expired']),
  unlimitedGrading: z.boolean(),
  trialEndsAtUtc: z.string().nullable(),
  gradesRemaining: z.number().int().nullable(),
  monthlyAllowance: z.number().int().nullable(),
  currentPeriodEndUtc: z.string().nullable(),
  trialRefusal: trialRefusalView,
});

const KEY_NOTE = 'Needs the API key (Authorization: Bearer <key> or X-Api-Key on the MCP request).';

// ------------------------------------------------------------------------------------------------------- tools

const registerAgentTool: ToolDefinition = {
  name: 'register_agent',
  title: 'Register an agent',
  description:
    'Create a CardLens account and get its API key (shown once: store it). Free; no key needed. Grants trial credits for prepaid scans: 1, or 3 with contactEmail (none with commercialOnly). Use start_grading_trial instead for a grading-subscription business account. Limited to 5 attempts per hour and 3 new accounts per day per client IP.',
  input: registrationInput,
  output: z.looseObject({ agentId: z.number().int(), apiKey: z.string(), tier: z.enum(['anonymous', 'registered', 'paid']), credits: z.number().int(), docsUrl: z.string(), message: z.string() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  needsKey: false,
  async run(ctx, args) {
    const view = await registerAgent(ctx.app, args, ctx.clientIp);
    return { result: { ...view }, summary: `Registered agent ${view.agentId} (${view.tier}, ${view.credits} credits). ${view.message}` };
  },
};

const startGradingTrialTool: ToolDefinition = {
  name: 'start_grading_trial',
  title: 'Start a grading-subscription trial',
  description:
    "Create a grading-only business account (no prepaid credits) and a subscription checkout link for its owner. Returns the API key (shown once: store it) and checkoutUrl: give checkoutUrl to the human owner, who adds a payment method on the hosted page; never ask for or handle card details. The 7-day unlimited grading trial starts when the owner completes checkout (check with check_credits); the plan is charged after the trial. One trial per person: when the owner's email or card already had one on another account, trialRefusal says so and the plan is charged at once. No key needed; same per-IP limits as register_agent.",
  input: gradingTrialInput,
  output: z.looseObject({ agentId: z.number().int(), apiKey: z.string(), plan: z.string(), checkoutUrl: z.string().nullable(), expiresAt: z.string().nullable(), trialDays: z.number().int(), trialRefusal: trialRefusalView, message: z.string() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  needsKey: false,
  async run(ctx, args) {
    const view = await startGradingTrial(ctx.app, args, ctx.clientIp);
    return { result: { ...view }, summary: view.message };
  },
};

const subscribeGradingTool: ToolDefinition = {
  name: 'subscribe_grading',
  title: 'Subscribe to a grading plan',
  description: `Get the hosted checkout link for a grading plan (grading_5000: 5,000 grades a month, USD 250; grading_10000: 10,000, USD 449), for the account owner to open; a first subscription starts with a 7-day unlimited trial (one per person: trialRefusal says why when the owner already had one). When already subscribed to the other plan the change is scheduled for the next renewal; when past due, a billing-portal link is returned instead. Asking again returns the same open link. Charges nothing itself. ${KEY_NOTE}`,
  input: planInput,
  output: z.looseObject({ action: z.enum(['checkout', 'portal', 'scheduled']), trialRefusal: trialRefusalView.optional(), message: z.string() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  needsKey: true,
  async run(ctx, args, caller) {
    const view = await subscribeGrading(ctx.app, caller, args);
    return { result: { ...view }, summary: view.message };
  },
};

const checkCreditsTool: ToolDefinition = {
  name: 'check_credits',
  title: 'Check credits and subscription',
  description: `Read the prepaid credit balance and the grading subscription (status, trial end, grades left this period). Free. ${KEY_NOTE}`,
  input: z.object({}),
  output: z.looseObject({ prepaidCredits: z.number().int(), ...subscriptionView.shape }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  needsKey: true,
  async run(ctx, _args, caller) {
    const view = await checkCredits(ctx.app, caller);
    const grades = view.unlimitedGrading ? 'unlimited grading (trial)' : `${view.gradesRemaining ?? 0} grades left`;
    return { result: { ...view }, summary: `${view.prepaidCredits} prepaid credits; subscription ${view.status}, ${grades}.` };
  },
};

const gradeCardInput = gradeUrlsInput.extend({
  billingSource: z
    .enum(['subscription', 'prepaid'])
    .default('subscription')
    .describe('subscription (default): grading only, synchronous, charged to the trial (free) or one grade of the monthly allowance. prepaid: an asynchronous prepaid scan with identification and grading (1 credit), polled with get_scan_result.'),
  // The REST Idempotency-Key's schema (1-64 characters of A-Z, a-z, 0-9, "_" and "-").
  idempotencyKey: IdempotencyKey.clone()
    .optional()
    .describe('Makes a retry safe: the same key and photos replay the first result without a new charge. A fresh key is made when absent (and returned).'),
});

const gradeCardTool: ToolDefinition = {
  name: 'grade_card',
  title: 'Grade a card from two photos',
  description: `Grade a trading card from public URLs of its front and back photos (JPEG/PNG, up to 15 MB each; 1000+ px recommended). Default billing "subscription": the AI condition grade (overall 1-10, centering, corners, edges, surface, per side) returned directly in about a second, charged to the grading trial (free) or one grade of the monthly allowance, never prepaid credits; no identification or value. One grade at a time per account. Billing "prepaid": a prepaid scan (1 credit) with identification and grading; returns a scan id to poll with get_scan_result. Grades are AI estimates, not certified grades. ${KEY_NOTE}`,
  input: gradeCardInput,
  output: z.object({
    billingSource: z.enum(['trial', 'subscription', 'prepaid']).nullable(),
    idempotencyKey: z.string(),
    grade: gradeView.optional().describe('billingSource trial or subscription: the completed grade.'),
    scan: scanAccepted.optional().describe('billingSource prepaid: the accepted scan; poll get_scan_result with scan.id.'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  needsKey: true,
  async run(ctx, args, caller) {
    const input = gradeCardInput.safeParse(args);
    // Missing URLs get the REST codes (missing_front_image / missing_back_image) from gradeUrls below.
    const billingSource = input.success ? input.data.billingSource : 'subscription';
    const idempotencyKey = (input.success ? input.data.idempotencyKey : undefined) ?? `mcp-${randomUUID()}`;
    const photos = gradeUrls(args);
    if (!input.success) throw new AppError('invalid_body', input.error.issues.map((i) => i.message).join('; '));
    if (billingSource === 'prepaid') {
      const { view } = await submitScan(ctx.app, caller, { modules: ['grade'], front: photos.front, back: photos.back, idempotencyKey });
      return {
        result: { billingSource: 'prepaid', idempotencyKey, scan: { ...view } },
        summary: `Prepaid scan ${view.id} queued (${view.creditsCharged} credit${view.creditsCharged === 1 ? '' : 's'} charged, ${view.creditsRemaining} left). Poll get_scan_result with scanId ${view.id}.`,
      };
    }
    const grade = await gradeCard(ctx.app, caller, { idempotencyKey, front: photos.front, back: photos.back });
    return {
      result: { billingSource: grade.billingSource, idempotencyKey, grade: { ...grade } },
      summary: grade.grading
        ? `AI grade ${grade.grading.grade} (${subGradesText(grade.grading.subGrades)}); ${grade.gradesCharged} grade charged (${grade.billingSource}). ${grade.grading.summary}${grade.links.report ? ` Report page for people (no key needed): ${grade.links.report}` : ''}`
        : `Grade ${grade.id}: ${grade.status}.`,
    };
  },
};

const scanCardInput = gradeUrlsInput.extend({
  modules: z
    .array(Module)
    .min(1)
    .describe('What to run (GET /v1/pricing has the live credits): identify (identification), grade (identification and AI grade), market (identification, raw and graded USD values with their sources, market insights), full (all of it).'),
  idempotencyKey: gradeCardInput.shape.idempotencyKey,
});

const scanCardTool: ToolDefinition = {
  name: 'scan_card',
  title: 'Scan a card with chosen modules (prepaid)',
  description: `Start a prepaid scan of a trading card from public URLs of its front and back photos, with the modules you choose: identify, grade, market (value from real market prices, with source and date) or full. Debited first from prepaid credits (insufficient_credits with a purchase link when short; buy_credits gets one); returns a scan id to poll with get_scan_result, usually done in about a second. A grade that cannot be given (nothing assessable on the photo) is refunded. ${KEY_NOTE}`,
  input: scanCardInput,
  output: z.object({ idempotencyKey: z.string(), scan: scanAccepted }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  needsKey: true,
  async run(ctx, args, caller) {
    const input = scanCardInput.safeParse(args);
    const photos = gradeUrls(args);
    if (!input.success) throw new AppError('invalid_body', input.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; '));
    const idempotencyKey = input.data.idempotencyKey ?? `mcp-${randomUUID()}`;
    const { view } = await submitScan(ctx.app, caller, { modules: input.data.modules, front: photos.front, back: photos.back, idempotencyKey });
    return {
      result: { idempotencyKey, scan: { ...view } },
      summary: `Scan ${view.id} queued (${view.modules.join(', ')}; ${view.creditsCharged} credit${view.creditsCharged === 1 ? '' : 's'} charged, ${view.creditsRemaining} left). Poll get_scan_result with scanId ${view.id}.`,
    };
  },
};

const buyCreditsTool: ToolDefinition = {
  name: 'buy_credits',
  title: 'Buy a credit pack (checkout link)',
  description: `Get a hosted checkout link for a prepaid credit pack (GET /v1/credits/packs lists them with their live prices). Give checkoutUrl to the human owner, who pays on the hosted page; never ask for, collect or handle payment-card details. The credits are added when the payment completes (check with check_credits); asking again returns the same open link. Charges nothing itself. ${KEY_NOTE}`,
  input: z.object({ pack: PurchaseRequest.shape.pack.clone().describe('The pack key (GET /v1/credits/packs), e.g. starter.') }),
  output: z.looseObject({ checkoutUrl: z.string(), pack: z.string(), credits: z.number().int(), priceUsd: z.number(), expiresAt: z.string().nullable() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  needsKey: true,
  async run(ctx, args, caller) {
    // The pack only: a shared payment token (a payment itself) is the REST API's, not a tool's.
    const view = await startCreditPurchase(ctx.app, caller, { pack: args.pack });
    if (view.kind !== 'checkout') throw new AppError('internal_error', 'A checkout purchase was paid directly.');
    const { kind: _kind, ...offer } = view;
    return { result: { ...offer }, summary: `Checkout for the ${offer.pack} pack (${offer.credits} credits, USD ${offer.priceUsd.toFixed(2)}): give the owner ${offer.checkoutUrl}` };
  },
};

const getGradeResultTool: ToolDefinition = {
  name: 'get_grade_result',
  title: 'Read a saved grade',
  description: `Read a commercial grade made with grade_card (subscription billing): processing, completed with its scores, or refunded. Free. ${KEY_NOTE}`,
  input: z.object({ gradeId: z.union([z.number().int().positive(), z.string()]).describe('The grade id: the integer id, or the string grade_<id>.') }),
  output: gradeView,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  needsKey: true,
  async run(ctx, args, caller) {
    const grade = await getGrade(ctx.app, caller, args.gradeId);
    const report = grade.links.report ? ` Report page for people (no key needed): ${grade.links.report}` : '';
    return { result: { ...grade }, summary: `Grade ${grade.id}: ${grade.status}${grade.grading ? `, AI grade ${grade.grading.grade}` : ''}.${report}` };
  },
};

const getScanResultTool: ToolDefinition = {
  name: 'get_scan_result',
  title: 'Poll a prepaid scan',
  description: `Poll a prepaid scan (from scan_card, grade_card with billingSource prepaid, or POST /v1/scans): queued or processing with progress, completed with identification and grading (and value and market when paid for), or failed. Free; poll every 1-2 seconds. ${KEY_NOTE}`,
  input: z.object({ scanId: parameters.ScanId.schema.clone().describe('The scan id returned by scan_card or grade_card (scan.id).') }),
  output: z.looseObject({ id: z.number().int(), status: z.enum(['queued', 'processing', 'completed', 'failed']) }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  needsKey: true,
  async run(ctx, args, caller) {
    const scan = await getScan(ctx.app, caller, args.scanId);
    const report = scan.status === 'completed' && scan.links.report ? ` Report page for people (no key needed): ${scan.links.report}` : '';
    return { result: { ...scan }, summary: `Scan ${scan.id}: ${scan.status}.${report}` };
  },
};

const reportSubjectInput = z.object({
  scanId: z.number().int().positive().optional().describe('A completed prepaid scan (scan.id). Give scanId or gradeId.'),
  gradeId: z.union([z.number().int().positive(), z.string().regex(/^(grade_)?[1-9][0-9]*$/)]).optional().describe('A completed commercial grade: the integer id or grade_<id>. Give scanId or gradeId.'),
});

/** Exactly one of scanId and gradeId (a portable schema cannot say so: checked here, invalid_body otherwise). */
function reportSubject(args: Record<string, unknown>): ReportSubject {
  const hasScan = args.scanId !== undefined;
  const hasGrade = args.gradeId !== undefined;
  if (hasScan === hasGrade) throw new AppError('invalid_body', 'Give exactly one of scanId (a prepaid scan) and gradeId (a commercial grade).');
  return hasScan ? { kind: 'scan', id: args.scanId } : { kind: 'grade', id: args.gradeId };
}

const shareReportTool: ToolDefinition = {
  name: 'share_report',
  title: 'Share a report page (new link)',
  description: `Issue a new share link to the report page of a completed scan or commercial grade: an HTML page a person opens without an API key (for a scan: identification, the AI grade and what limited it, the overlay, defects, centering, values with their source; for a grade: the AI grade, sub-grades and centering). Every completed scan and grade already has one in links.report (30 days); this makes a new one with its own lifetime, and the old link stops working. Free. ${KEY_NOTE}`,
  input: reportSubjectInput.extend({
    // The REST body's own piece: one definition of the lifetime a link may have.
    expiresInDays: ShareReportRequest.shape.expiresInDays,
  }),
  output: z.object({ url: z.string().meta({ format: 'uri' }), expiresAt: z.string().nullable(), createdAt: z.string().nullable() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  needsKey: true,
  async run(ctx, args, caller) {
    const link = await shareReport(ctx.app, caller, reportSubject(args), args.expiresInDays as number | undefined);
    return { result: { ...link }, summary: `Report link, valid until ${link.expiresAt}: ${link.url}` };
  },
};

const revokeReportTool: ToolDefinition = {
  name: 'revoke_report',
  title: 'Revoke a report link',
  description: `Stop sharing the report page of a scan or commercial grade: its live link answers 404 at once (idempotent). share_report issues a new one. Free. ${KEY_NOTE}`,
  input: reportSubjectInput,
  output: z.object({ revoked: z.boolean().describe('Whether a live link was revoked (false: there was none).') }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  needsKey: true,
  async run(ctx, args, caller) {
    const result = await revokeReport(ctx.app, caller, reportSubject(args));
    return { result: { ...result }, summary: result.revoked ? 'The report link no longer works.' : 'There was no live report link.' };
  },
};

export const TOOLS: readonly ToolDefinition[] = [
  registerAgentTool,
  startGradingTrialTool,
  subscribeGradingTool,
  checkCreditsTool,
  gradeCardTool,
  scanCardTool,
  buyCreditsTool,
  getGradeResultTool,
  getScanResultTool,
  shareReportTool,
  revokeReportTool,
];
