// The sandbox provider's test clock (npm run billing:sandbox-clock at the repository root):
//   sandbox-clock-cli.ts show
//   sandbox-clock-cli.ts advance <duration>      duration: 90s, 45m, 2h, 8d (at most 400d)
// Advancing runs every trial end, renewal, payment retry and cancellation that falls due, as a Stripe test clock
// does, and delivers their events to the webhook endpoint. Sandbox only: a billing with a Stripe key answers
// not_found. Billing's address: BILLING_GRPC_ADDRESS, else the one `npm start` wrote to embedded.json beside its
// PGlite folder (PGLITE_DIR, default .data/pglite: .data/embedded.json).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { billingSandboxV1, dateFromTimestamp } from '@cardlens/contracts';
import { callUnary, createClient } from '@cardlens/grpc-kit';

const USAGE = `usage: npm run billing:sandbox-clock -- show | advance <duration>   (duration: 90s, 45m, 2h, 8d)`;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

export function parseDuration(text: string): number | undefined {
  const match = /^(\d+)([smhd])$/.exec(text.trim());
  return match ? Number(match[1]) * UNIT_SECONDS[match[2]!]! : undefined;
}

function billingAddress(): string {
  if (process.env.BILLING_GRPC_ADDRESS) return process.env.BILLING_GRPC_ADDRESS;
  const file = path.join(path.dirname(path.resolve(root, process.env.PGLITE_DIR ?? '.data/pglite')), 'embedded.json');
  if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { billingGrpcAddress: string }).billingGrpcAddress;
  return '127.0.0.1:50052';
}

async function main(argv: string[]): Promise<number> {
  const [command, duration] = argv;
  const seconds = command === 'advance' && duration ? parseDuration(duration) : undefined;
  if (command !== 'show' && !(command === 'advance' && seconds)) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const client = createClient(billingSandboxV1.SandboxCheckoutServiceClient, billingAddress());
  try {
    const options = { deadlineMs: 60_000 };
    const result =
      command === 'show'
        ? { ...(await callUnary(client, 'getSandboxClock', {}, options)), eventsEmitted: 0 }
        : await callUnary(client, 'advanceSandboxClock', { seconds: seconds! }, options);
    const now = result.clock?.now ? dateFromTimestamp(result.clock.now).toISOString() : null;
    process.stdout.write(`${JSON.stringify({ now, offsetSeconds: Number(result.clock?.offsetSeconds ?? 0), eventsEmitted: result.eventsEmitted })}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`sandbox clock: ${error instanceof Error ? error.message : String(error)} (is \`npm start\` running without a Stripe key?)\n`);
    return 1;
  } finally {
    client.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  process.exitCode = await main(process.argv.slice(2));
}
