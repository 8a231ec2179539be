/** Helpers the benches share: option parsing and a completed scan to read. */
import type { StackMode } from '../test/stack';

/** `--mode`: where the benched stack keeps its data and sends its messages. */
export function stackMode(raw: string | undefined): StackMode {
  if (raw !== 'infra' && raw !== 'embedded') throw new Error('--mode is infra or embedded');
  return raw;
}

/** A `--name N` option that must be a positive integer. */
export function positiveInt(name: string, raw: string | undefined): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
  return n;
}

/** Submits one `grade` scan of the photo pair with the key and polls it until it completes; returns its id. */
export async function completedGradeScan(baseUrl: string, apiKey: string, photo: { frontJpeg: Uint8Array; backJpeg: Uint8Array }): Promise<number> {
  const form = new FormData();
  form.append('modules', 'grade');
  form.append('front', new Blob([Buffer.from(photo.frontJpeg)], { type: 'image/jpeg' }), 'front.jpg');
  form.append('back', new Blob([Buffer.from(photo.backJpeg)], { type: 'image/jpeg' }), 'back.jpg');
  const headers = { Authorization: `Bearer ${apiKey}` };
  const accepted = await fetch(`${baseUrl}/v1/scans`, { method: 'POST', headers, body: form });
  if (accepted.status !== 202) throw new Error(`POST /v1/scans answered ${accepted.status}`);
  const { id } = (await accepted.json()) as { id: number };
  for (;;) {
    const { status } = (await (await fetch(`${baseUrl}/v1/scans/${id}`, { headers })).json()) as { status: string };
    if (status === 'completed') return id;
    if (status === 'failed') throw new Error(`scan ${id} failed`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
