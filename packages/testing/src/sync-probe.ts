import { spawnSync } from 'node:child_process';
import { infraUrls, tcpEndpoints, type HostPort, type InfraKind } from './env';

// Runs in a child node process so the probe can be synchronous (jest collects describe blocks synchronously).
const CHILD_SCRIPT = `
const net = require('node:net');
const targets = JSON.parse(process.argv[1]);
const tryOne = ({ host, port }) => new Promise((resolve) => {
  const socket = net.connect({ host, port });
  const done = (ok) => { socket.destroy(); resolve(ok); };
  socket.setTimeout(${1_000}, () => done(false));
  socket.once('connect', () => done(true));
  socket.once('error', () => done(false));
});
Promise.all(targets.map(async ({ kind, endpoints }) => {
  for (const endpoint of endpoints) if (await tryOne(endpoint)) return [kind, true];
  return [kind, false];
})).then((results) => { process.stdout.write(JSON.stringify(Object.fromEntries(results))); });
`;

/**
 * Kinds whose TCP endpoint refuses a connection, checked synchronously (about 50 ms: one child process for
 * all kinds, 1 s connect timeout). A kind whose endpoint cannot be told (Unix socket URL) counts as
 * reachable; the async probe in beforeAll decides for it.
 */
export function unreachableKindsSync(kinds: readonly InfraKind[]): InfraKind[] {
  const urls = infraUrls();
  const targets: { kind: InfraKind; endpoints: HostPort[] }[] = [];
  for (const kind of new Set(kinds)) {
    const endpoints = tcpEndpoints(kind, urls);
    if (endpoints && endpoints.length > 0) targets.push({ kind, endpoints });
  }
  if (targets.length === 0) return [];
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const child = spawnSync(process.execPath, ['-e', CHILD_SCRIPT, JSON.stringify(targets)], {
    encoding: 'utf8',
    timeout: 5_000,
    env,
  });
  let reachable: Partial<Record<InfraKind, boolean>> = {};
  try {
    reachable = JSON.parse(child.stdout) as Partial<Record<InfraKind, boolean>>;
  } catch {
    // The probe itself failed: report every kind unreachable; in CI the async check then explains.
  }
  return targets.filter(({ kind }) => reachable[kind] !== true).map(({ kind }) => kind);
}
