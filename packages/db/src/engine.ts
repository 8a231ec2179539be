// Loads Prisma's schema engine compiled to WebAssembly (@prisma/schema-engine-wasm, pinned exactly in
// package.json): the native schema-engine binary that `prisma migrate` needs cannot be downloaded here.
// The package's own entry (`schema_engine.js`) does `import * as wasm from "./schema_engine_bg.wasm"`, which
// Node cannot load, so we instantiate the .wasm ourselves with the JS glue as its import object.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import type { SchemaEngine } from '@prisma/schema-engine-wasm/schema_engine_bg';

export type { SchemaEngine };

type WasmExports = Record<string, unknown>;

type Glue = typeof import('@prisma/schema-engine-wasm/schema_engine_bg') & {
  __wbg_set_wasm(exports: WasmExports): void;
};

// The WebAssembly global exists in Node, but tsconfig's lib (ES2023, no DOM) does not declare it.
interface WasmApi {
  compile(bytes: Uint8Array): Promise<object>;
  Instance: new (module: object, imports: Record<string, object>) => { exports: WasmExports };
}
const { WebAssembly: wasm } = globalThis as unknown as { WebAssembly: WasmApi };

let loading: Promise<Glue> | undefined;

async function load(): Promise<Glue> {
  const require = createRequire(import.meta.url);
  const gluePath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
  const glue = (await import('@prisma/schema-engine-wasm/schema_engine_bg')) as Glue;
  const module = await wasm.compile(readFileSync(path.join(path.dirname(gluePath), 'schema_engine_bg.wasm')));
  // The engine arms 10 s timers (setTimeout, never cleared) that would keep a finished process alive for up to
  // 10 s; unref them.
  const imports: Record<string, unknown> = { ...glue };
  for (const [name, value] of Object.entries(glue)) {
    if (name.startsWith('__wbg_setTimeout_') && typeof value === 'function') {
      imports[name] = (...args: unknown[]) => {
        const timer = (value as (...a: unknown[]) => unknown)(...args) as { unref?: () => void } | undefined;
        timer?.unref?.();
        return timer;
      };
    }
  }
  const instance = new wasm.Instance(module, { './schema_engine_bg.js': imports });
  glue.__wbg_set_wasm(instance.exports);
  (instance.exports as { __wbindgen_start(): void }).__wbindgen_start();
  return glue;
}

/** The engine's glue module, instantiated once per process (module registry). */
export function loadSchemaEngine(): Promise<Glue> {
  loading ??= load().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

export interface SchemaFile {
  path: string;
  content: string;
}

/** One engine log line (the engine emits JSON). */
export interface EngineLogLine {
  level?: string;
  fields?: { message?: string; [key: string]: unknown };
  target?: string;
}

/**
 * Runs `fn` with a schema engine bound to `factory`, then frees the engine. The engine does not dispose
 * the adapters it connected (free() leaves them open), so callers close their pools/PGlites themselves.
 */
export async function withSchemaEngine<T>(
  schema: SchemaFile,
  factory: SqlMigrationAwareDriverAdapterFactory,
  onLog: (line: EngineLogLine) => void,
  fn: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  const glue = await loadSchemaEngine();
  const engine = await glue.SchemaEngine.new(
    { datamodels: [[schema.path, schema.content]] },
    (raw: string) => {
      try {
        onLog(JSON.parse(raw) as EngineLogLine);
      } catch {
        onLog({ fields: { message: raw } });
      }
    },
    bindMigrationAwareSqlAdapterFactory(factory),
  );
  try {
    return await fn(engine);
  } finally {
    engine.free();
  }
}

export const NO_FILTERS = { externalTables: [], externalEnums: [] };
