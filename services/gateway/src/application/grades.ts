import { GradeCreateJson } from '../contract/schemas';
import { parseRequest } from '../contract/validate';
import { checkGradeModules, parseGradeId } from '../http/grade-request';
import { presentGrade, type GradeView } from '../http/grade-view';
import type { ImageSource } from '../http/image-intake';
import type { AppContext, Caller } from './context';

/** A commercial grade's photos as URLs (the JSON form of POST /v1/grades, and MCP grade_card): the contract's. */
export const gradeUrlsInput = GradeCreateJson.pick({ frontImageUrl: true, backImageUrl: true });

/**
 * POST /v1/grades and MCP grade_card (subscription billing): one synchronous grading-only grade of a photo pair,
 * charged to the trial or the monthly allowance. `modules`, when given, must be `grade`.
 */
export async function gradeCard(ctx: AppContext, caller: Caller, request: { idempotencyKey: string; front: ImageSource; back: ImageSource; modules?: unknown }): Promise<GradeView> {
  checkGradeModules(request.modules);
  const photos = await ctx.photos.loadPair(request.front, request.back);
  const { grade } = await ctx.downstream.gradeCard({ agentId: caller.agentId, idempotencyKey: request.idempotencyKey, front: photos.front, back: photos.back });
  return presentGrade(grade, ctx.baseUrl);
}

/** The photo URLs of a JSON grade request: both required (missing_front_image / missing_back_image). */
export function gradeUrls(body: unknown): { front: ImageSource; back: ImageSource } {
  const urls = parseRequest(gradeUrlsInput, body, { label: 'The request body', rootDetail: 'The request body must be a JSON object with frontImageUrl and backImageUrl.' });
  return { front: { url: urls.frontImageUrl, field: 'frontImageUrl' }, back: { url: urls.backImageUrl, field: 'backImageUrl' } };
}

/** GET /v1/grades/{id} and MCP get_grade_result (free). Accepts the integer id or `grade_<id>`. */
export async function getGrade(ctx: AppContext, caller: Caller, id: unknown): Promise<GradeView> {
  const raw = typeof id === 'number' ? String(id) : typeof id === 'string' ? id.replace(/^grade_/, '') : id;
  return presentGrade(await ctx.downstream.getGrade(caller.agentId, parseGradeId(raw)), ctx.baseUrl);
}
