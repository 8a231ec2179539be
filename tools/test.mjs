// `npm test` after bootstrap: every workspace's tests, in two lanes that run side by side.
//
// The suites that use Postgres, Redis, Kafka or Chromium share those servers (schemas, topics, consumer
// groups, ports), so they run one package at a time, as they always have. The packages below touch none of
// them (pure computation, PGlite-free, loopback gRPC on ephemeral ports) and run in a second lane beside the
// first: on a two-core CI machine the vision suite alone took about five minutes of a serial run. A servers
// package's suites that need no server are its `test:real` script (the valuation service's identification of real
// photos, on PGlite: about four minutes there) and `test:embedded` (the all-in-one process as `npm start` runs it:
// the README walk, the quiet console, the contract fuzz, the report page in a browser of its own), which the
// second lane runs after its packages.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';

/** Workspaces whose tests need no server and no browser. */
const SERVERLESS_PACKAGES = [
  '@cardlens/blob-store',
  '@cardlens/card-synth',
  '@cardlens/contracts',
  '@cardlens/errors',
  '@cardlens/grading-rubric',
  '@cardlens/grpc-kit',
  '@cardlens/inference',
  '@cardlens/telemetry',
  '@cardlens/vision',
];

const workspaceNames = ['packages', 'services'].flatMap((dir) =>
  readdirSync(dir)
    .map((entry) => path.join(dir, entry, 'package.json'))
    .filter((file) => existsSync(file))
    .map((file) => JSON.parse(readFileSync(file, 'utf8')).name),
);
const unknown = SERVERLESS_PACKAGES.filter((name) => !workspaceNames.includes(name));
if (unknown.length > 0) {
  process.stderr.write(`tools/test.mjs: no workspace is named ${unknown.join(', ')}\n`);
  process.exit(2);
}

/** Each lane's turbo runs, one after another: the task and the packages it runs in. */
const lanes = [
  { name: 'servers', runs: [['test', ...SERVERLESS_PACKAGES.map((name) => `--filter=!${name}`)]] },
  { name: 'serverless', runs: [['test', ...SERVERLESS_PACKAGES.map((name) => `--filter=${name}`)], ['test:real'], ['test:embedded']] },
];

/** The lanes' turbo processes, to pass a signal on to; once signalled, no lane starts another. */
const children = [];
let stopping = false;

/** A run goes on past a failing package (--continue), so one report shows every package that failed. */
function runTurbo([task, ...filters]) {
  return new Promise((resolve) => {
    const child = spawn('npx', ['turbo', 'run', task, '--concurrency=1', '--continue', ...filters, ...process.argv.slice(2)], {
      stdio: 'inherit',
      env: process.env,
    });
    children.push(child);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/** A lane's runs in order; every run is made, and the lane fails if any of them does. */
async function runLane(lane) {
  let code = 0;
  for (const run of lane.runs) if (!stopping) code = (await runTurbo(run)) || code;
  return { lane: lane.name, code };
}

// A CI time limit (timeout(1)) signals this process only: pass it on so that no lane outlives the run.
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    stopping = true;
    children.forEach((child) => child.kill(signal));
  });
}
const results = await Promise.all(lanes.map(runLane));
for (const { lane, code } of results) process.stdout.write(`test lane "${lane}": ${code === 0 ? 'passed' : `FAILED (exit ${code})`}\n`);
process.exit(results.some(({ code }) => code !== 0) ? 1 : 0);
