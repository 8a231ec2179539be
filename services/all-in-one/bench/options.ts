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
