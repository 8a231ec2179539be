import { AppError } from '@cardlens/errors';
import { z } from 'zod';
import { checkGradeModules, parseGradeId } from '../http/grade-request';
import { presentGrade, type GradeView } from '../http/grade-view';
import type { ImageSource } from '../http/image-intake';
import type { AppContext, Caller } from './context';

/** A commercial grade's photos as URLs (the JSON form of POST /v1/grades, and MCP grade_card). */
export const gradeUrlsInput = z.object({
  frontImageUrl: z.string({ error: (i) => (i.input === undefined || i.input === null ? 'frontImageUrl is required' : 'frontImageUrl must be a string') }).meta({ format: 'uri' }).describe('Publicly fetchable absolute http(s) URL of the front photo (JPEG or PNG, up to 15 MB).'),
  backImageUrl: z.string({ error: (i) => (i.input === undefined || i.input === null ? 'backImageUrl is required' : 'backImageUrl must be a string') }).meta({ format: 'uri' }).describe('Publicly fetchable absolute http(s) URL of the back photo (JPEG or PNG, up to 15 MB).'),
});

/**
 * POST /v1/grades and MCP grade_card (subscription billing): one synchronous grading-only grade of a photo pair,
 * charged to the trial or the monthly allowance. `modules`, when given, must be `grade`.
 */
export async function gradeCard(ctx: AppContext, caller: Caller, request: { idempotencyKey: string; front: ImageSource; back: ImageSource; modules?: unknown }): Promise<GradeView> {
  checkGradeModules(request.modules);
  const photos = await ctx.photos.loadPair(request.front, request.back);
  const { grade } = await ctx.downstream.gradeCard({ agentId: caller.agentId, idempotencyKey: request.idempotencyKey, front: photos.front, back: photos.back });
  return presentGrade(grade);
}

/** The photo URLs of a JSON grade request: both required (missing_front_image / missing_back_image). */
export function gradeUrls(body: unknown): { front: ImageSource; back: ImageSource } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('invalid_body', 'The request body must be a JSON object with frontImageUrl and backImageUrl.');
  }
  const { frontImageUrl, backImageUrl } = body as Record<string, unknown>;
  if (frontImageUrl === undefined || frontImageUrl === null) {
    throw new AppError('missing_front_image', 'frontImageUrl is required: a publicly fetchable absolute http(s) URL of a JPEG or PNG.');
  }
  if (backImageUrl === undefined || backImageUrl === null) {
    throw new AppError('missing_back_image', 'backImageUrl is required: a commercial grade needs both sides of the card.');
  }
  const urls = gradeUrlsInput.safeParse({ frontImageUrl, backImageUrl });
  if (!urls.success) throw new AppError('invalid_body', urls.error.issues.map((i) => i.message).join('; '));
  return { front: { url: urls.data.frontImageUrl, field: 'frontImageUrl' }, back: { url: urls.data.backImageUrl, field: 'backImageUrl' } };
}

/** GET /v1/grades/{id} and MCP get_grade_result (free). Accepts the integer id or `grade_<id>`. */
export async function getGrade(ctx: AppContext, caller: Caller, id: unknown): Promise<GradeView> {
  const raw = typeof id === 'number' ? String(id) : typeof id === 'string' ? id.replace(/^grade_/, '') : id;
  return presentGrade(await ctx.downstream.getGrade(caller.agentId, parseGradeId(raw)));
}
