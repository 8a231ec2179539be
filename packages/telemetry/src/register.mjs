// Preload entry: `node --import tsx --import @cardlens/telemetry/register src/main.ts` (see register-main.ts).
// Plain JavaScript on purpose: worker threads (tesseract.js's OCR workers, for one) inherit the process's
// `--import` flags but not tsx's loader, so a TypeScript preload would kill them at start. Only the main
// thread is instrumented; in a worker this file does nothing.
import { isMainThread } from 'node:worker_threads';

if (isMainThread) await import('./register-main.ts');
