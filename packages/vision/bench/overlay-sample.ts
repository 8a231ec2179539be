/**
 * npm run overlay:sample -w @cardlens/vision [seed] — grades one generated evaluation pair and writes its overlay
 * to docs/overlay-sample.png (the picture in the README), with the grade and the truth printed beside it.
 */
import { writeFile } from 'node:fs/promises';
import { generateSample } from '@cardlens/card-synth';
import { createCardEngine } from '../src/engine';

const seed = Number(process.argv[2] ?? 1_000_006);
const out = new URL('../docs/overlay-sample.png', import.meta.url);
const engine = await createCardEngine();
const { frontJpeg, backJpeg, label } = await generateSample(seed);
const analysis = await engine.analyzeCard({ front: frontJpeg, back: backJpeg }, { overlay: true });
await writeFile(out, analysis.overlayPng!);
await engine.close();
const g = analysis.grading;
process.stdout.write(`seed ${seed}: grade ${g.grade} (truth ${label.truth.grade}), sub-grades ${JSON.stringify(g.subGrades)} (truth ${JSON.stringify(label.truth.subGrades)})\n${g.justification}\nwrote ${out.pathname}\n`);
