import type { commonV1, scansV1 } from '@cardlens/contracts';
import { isFinishedScan } from '../downstream';
import { imageContent, type ImageSource } from '../http/image-intake';
import { parseModules, parseScanId, requestFingerprint } from '../http/scan-request';
import { presentScan, presentScanAccepted, type ScanResultView } from '../http/scan-view';
import type { AppContext, Caller } from './context';

export interface ScanInput {
  modules: unknown;
  front: ImageSource;
  back: ImageSource | undefined;
  idempotencyKey: string | undefined;
}

/**
 * POST /v1/scans and MCP grade_card with prepaid billing: a prepaid scan, debited first and queued; poll it with
 * GET /v1/scans/{id} (get_scan_result). A replay of a key is answered from the stored acceptance before any
 * image is fetched again.
 */
export async function submitScan(ctx: AppContext, caller: Caller, input: ScanInput): Promise<{ view: ReturnType<typeof presentScanAccepted>; creditsRemaining: number }> {
  const modules = parseModules(input.modules);
  const fingerprint = requestFingerprint({ modules, front: input.front, back: input.back });
  if (input.idempotencyKey !== undefined) {
    const accepted = await ctx.downstream.findIdempotentScan({ agentId: caller.agentId, idempotencyKey: input.idempotencyKey, requestFingerprint: fingerprint });
    if (accepted) return { view: presentScanAccepted(accepted), creditsRemaining: accepted.creditsRemaining };
  }
  const { front, back } = await ctx.photos.loadPair(input.front, input.back);
  const created = await ctx.downstream.createScan({
    agentId: caller.agentId,
    modules,
    front: imageInput(front),
    back: back === undefined ? undefined : imageInput(back),
    idempotencyKey: input.idempotencyKey,
    requestFingerprint: fingerprint,
  });
  return { view: presentScanAccepted(created), creditsRemaining: created.creditsRemaining };
}

function imageInput(bytes: Uint8Array): commonV1.ImageInput {
  return { source: { $case: 'content', value: imageContent(bytes) } };
}

/** MCP get_scan_result (free). */
export async function getScan(ctx: AppContext, caller: Caller, id: unknown): Promise<ScanResultView> {
  return presentScan(await ctx.downstream.getScan(caller.agentId, parseScanId(typeof id === 'number' ? String(id) : id)), ctx.baseUrl);
}

/**
 * The JSON of a finished scan's view, made once: downstream keeps finished scans (they never change) and hands
 * out the same result object each time, so its text is kept beside it, and goes when the result is evicted.
 */
const finishedScanJson = new WeakMap<scansV1.ScanResult, string>();

/** GET /v1/scans/{id} (free): the view as JSON text, since polling agents read a finished scan again and again. */
export async function getScanJson(ctx: AppContext, caller: Caller, id: unknown): Promise<string> {
  const scan = await ctx.downstream.getScan(caller.agentId, parseScanId(typeof id === 'number' ? String(id) : id));
  const kept = finishedScanJson.get(scan);
  if (kept !== undefined) return kept;
  const json = JSON.stringify(presentScan(scan, ctx.baseUrl));
  if (isFinishedScan(scan)) finishedScanJson.set(scan, json);
  return json;
}
