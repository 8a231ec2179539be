// Compiles our TypeScript entry points into ESM bundles, for the images (tools/images/stage.mjs) and for
// `npm start` (tools/build-start.mjs): our code (services, @cardlens/* packages, generated ts-proto and Prisma code)
// is compiled and inlined; every npm package stays an import of node_modules, so OpenTelemetry still patches them
// by name and their .wasm/.node assets load from their own folders.
//
// Our modules locate files relative to themselves (`new URL('../openapi/openapi.yaml', import.meta.url)`). In a
// bundle every module shares the bundle's URL, so each module's `import.meta.url` is rewritten to the URL its
// source file has in the repository, relative to the bundle's folder: bundles are written to a folder directly
// under the root (dist/ or .image-build/), so the same relative lookups work from source and compiled.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const posix = (p) => p.split(path.sep).join('/');

/**
 * esbuild plugin: our own modules (outside node_modules) get `import.meta.url` replaced by the URL their source
 * would have under the output's root (the repository, or an image holding it at the same paths). (The build also defines `CARDLENS_COMPILED` as true, for the one place that
 * must know it runs compiled: the inference engine's child-process entry.)
 */
export const moduleUrlPlugin = {
  name: 'cardlens-module-url',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: /\.(ts|mts|mjs|js)$/ }, (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      const relative = posix(path.relative(ROOT, args.path));
      return {
        contents: source.replaceAll('import.meta.url', `new URL(${JSON.stringify(`../${relative}`)}, import.meta.url).href`),
        loader: args.path.endsWith('.ts') || args.path.endsWith('.mts') ? 'ts' : 'js',
        resolveDir: path.dirname(args.path),
      };
    });
  },
};

/** The folder of the package a resolved file belongs to (the last `node_modules/<name>` or `<@scope>/<name>`). */
export function packageDirOf(file) {
  const parts = file.split(path.sep);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0) return undefined;
  return parts.slice(0, at + (parts[at + 1]?.startsWith('@') ? 3 : 2)).join(path.sep);
}

/**
 * esbuild plugin: npm packages stay imports; our workspaces (@cardlens/*, symlinked into node_modules) are inlined.
 * An import stays bare when it resolves to the same package from the image root; where a workspace has its own
 * version (services/gateway/node_modules/lru-cache while the root has another), it becomes a relative import
 * of that file, which the image carries at the same repository path.
 */
export const externalPackagesPlugin = {
  name: 'cardlens-external-packages',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData?.inner || args.path.startsWith('@cardlens/') || args.path.startsWith('node:')) return undefined;
      const from = await pluginBuild.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: { inner: true } });
      if (from.errors.length > 0 || !from.path || from.external) return { path: args.path, external: true };
      const fromRoot = await pluginBuild.resolve(args.path, { kind: args.kind, resolveDir: ROOT, pluginData: { inner: true } });
      if (fromRoot.errors.length === 0 && packageDirOf(fromRoot.path) === packageDirOf(from.path)) return { path: args.path, external: true };
      return { path: `../${posix(path.relative(ROOT, from.path))}`, external: true };
    });
  },
};

/**
 * Bundles `entryPoints` (output name -> repository path) into `outdir`, a folder directly under the root, as
 * <name>.mjs plus shared chunks beside them. Returns esbuild's result (its metafile lists the outputs).
 */
export function bundleEntries({ entryPoints, outdir }) {
  if (path.dirname(outdir) !== ROOT) throw new Error(`bundles go to a folder directly under ${ROOT}, not ${outdir}`);
  return build({
    absWorkingDir: ROOT,
    entryPoints: Object.fromEntries(Object.entries(entryPoints).map(([name, file]) => [name, path.join(ROOT, file)])),
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    sourcemap: 'linked',
    legalComments: 'linked',
    chunkNames: 'chunk-[hash]', // beside the entries: every module's URL is rewritten relative to the folder
    tsconfig: path.join(ROOT, 'tsconfig.base.json'),
    define: { CARDLENS_COMPILED: 'true' },
    plugins: [externalPackagesPlugin, moduleUrlPlugin],
    logLevel: 'warning',
    metafile: true,
  });
}
