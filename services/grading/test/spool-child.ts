// Child process of photo-spool.test.ts: spools a photo pair for an analysis that never ends, reports the
// directory, and waits to be killed (SIGKILL: no finally block runs, as in a crash or an OOM kill).
import { pino } from 'pino';
import { PhotoSpool } from '../src/photo-spool';

const [root, marker] = process.argv.slice(2) as [string, string];
const spool = new PhotoSpool(root, 60_000, pino({ level: 'silent' }));
await spool.open(60_000);
const bytes = Buffer.from(`${marker}-photo-bytes`);
await spool.withPhotos('grade-1', { front: bytes, back: bytes }, async () => {
  process.send?.('spooled');
  await new Promise(() => undefined);
});
