// Writes generated samples: <out>/<seed>/front.jpg, back.jpg, label.json.
//   npx tsx packages/card-synth/src/cli.ts --from 1000000 --count 20 --out /tmp/samples [--workers 2]
//     [--game pokemon|sports] [--target-grade 7.5] [--megapixels 12]
// --workers N splits the seed range over N child processes (one per core).
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { generateSample, type GenerateOptions } from './index';
import { catalogLines } from './catalog';

const { values } = parseArgs({
  options: {
    from: { type: 'string', default: '1000000' },
    count: { type: 'string', default: '20' },
    out: { type: 'string', default: '/tmp/card-synth' },
    workers: { type: 'string', default: '1' },
    game: { type: 'string' },
    'target-grade': { type: 'string' },
    megapixels: { type: 'string' },
    quiet: { type: 'boolean', default: false },
  },
});

const from = Number(values.from);
const count = Number(values.count);
const workers = Math.max(1, Number(values.workers));
const out = values.out as string;

async function runWorkers(): Promise<void> {
  const per = Math.ceil(count / workers);
  const started = performance.now();
  const jobs: Promise<number>[] = [];
  for (let w = 0; w < workers; w++) {
    const start = from + w * per;
    const n = Math.min(per, from + count - start);
    if (n <= 0) continue;
    const args = process.argv.slice(2).filter((_, i, all) => !['--from', '--count', '--workers'].includes(all[i - 1] ?? '') && !['--from', '--count', '--workers'].includes(all[i] ?? ''));
    const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), ...args, '--from', String(start), '--count', String(n), '--workers', '1'], {
      stdio: 'inherit',
    });
    jobs.push(new Promise((resolve) => child.on('exit', (code) => resolve(code ?? 1))));
  }
  const codes = await Promise.all(jobs);
  const secs = (performance.now() - started) / 1000;
  console.log(`done: ${count} samples in ${secs.toFixed(1)} s with ${workers} workers (${((secs * 1000) / count).toFixed(0)} ms per pair overall)`);
  if (codes.some((c) => c !== 0)) process.exit(1);
}

async function runLocal(): Promise<void> {
  const options: GenerateOptions = {};
  if (values.game === 'pokemon' || values.game === 'sports') options.game = values.game;
  if (values['target-grade']) options.condition = { targetGrade: Number(values['target-grade']) };
  if (values.megapixels) options.photo = { megapixels: Number(values.megapixels) };
  await mkdir(out, { recursive: true });
  // Load the catalogs up front so per-pair timings are generation only.
  catalogLines('pokemon');
  catalogLines('sports');
  let total = 0;
  const cpu0 = process.cpuUsage();
  for (let seed = from; seed < from + count; seed++) {
    const t0 = performance.now();
    const sample = await generateSample(seed, options);
    const ms = performance.now() - t0;
    total += ms;
    const dir = join(out, String(seed));
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'front.jpg'), sample.frontJpeg);
    await writeFile(join(dir, 'back.jpg'), sample.backJpeg);
    await writeFile(join(dir, 'label.json'), JSON.stringify(sample.label, null, 2));
    if (!values.quiet) {
      const l = sample.label;
      const tags = Object.entries(l.tags)
        .filter(([k, v]) => k !== 'sides' && v === true)
        .map(([k]) => k)
        .join(',');
      console.log(
        `${seed} ${l.split} grade ${l.truth.grade} (target ${l.condition.targetGrade}, ${l.condition.dominant}) ${l.card.game} "${l.card.name}" ${l.card.finish} ` +
          `${l.photo.front.megapixels}+${l.photo.back.megapixels} MP ${ms.toFixed(0)} ms ${tags}`,
      );
    }
  }
  const cpu = process.cpuUsage(cpu0);
  const n = Math.max(1, count);
  if (!values.quiet) {
    console.log(`${count} pairs, ${(total / n).toFixed(0)} ms per pair wall, ${((cpu.user + cpu.system) / 1000 / n).toFixed(0)} ms per pair CPU (this process)`);
  }
}

if (workers > 1) await runWorkers();
else await runLocal();
