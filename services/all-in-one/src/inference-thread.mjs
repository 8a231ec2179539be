// Worker-thread entry for src/inference-thread.ts: loads TypeScript through tsx's loader, which a worker
// thread does not inherit from its parent.
import { register } from 'tsx/esm/api';

register();
await import('./inference-thread.ts');
