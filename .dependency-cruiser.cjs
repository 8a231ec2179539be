// Architecture rules for the CardLens monorepo, checked by `npm run lint:deps`
// (`depcruise services packages --config .dependency-cruiser.cjs`).
//
// Paths below are repository-relative and already resolved: `@cardlens/<pkg>` imports go through the
// workspace symlinks in node_modules/@cardlens and resolve (package.json "exports" -> ./src/index.ts) to
// the real source files under packages/ or services/, so the rules bite on package imports and relative
// imports alike.
//
// Not enforced here: "nobody edits generated code" (packages/contracts/src/gen/**, services/*/src/generated/**).
// CI regenerates (`npm run generate`) and fails on any diff, which is what keeps hand edits out.

/**
 * Test code: `*.test.ts` anywhere, everything under a workspace's `test/` folder, jest configs, and
 * @cardlens/testing (test-only helpers, never part of a running service).
 */
// Tests, and benches (developer tools run with tsx, never shipped), may use devDependencies.
// Tests, benches and data-build scripts (packages/catalog-data/scripts: run by hand from pinned sources, never
// shipped) may use devDependencies.
const TEST = ['(^|/)test/', '(^|/)bench/', '^packages/catalog-data/scripts/', '\\.test\\.[cm]?[jt]sx?$', '(^|/)jest\\.config\\.[cm]?js$', '^packages/testing/'];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cross-service-imports',
      severity: 'error',
      comment:
        'A service never imports another service (tests included); services talk gRPC through ' +
        '@cardlens/contracts, or Kafka through @cardlens/bus. Shared code belongs in packages/.',
      from: { path: '^services/([^/]+)/', pathNot: '^services/all-in-one/' },
      to: { path: '^services/[^/]+/', pathNot: '^services/$1/' },
    },
    {
      name: 'all-in-one-only-entry-points',
      severity: 'error',
      comment:
        'The embedded launcher may import another service only through its entry points: ' +
        'services/<name>/src/service.ts and services/<name>/src/config.ts.',
      from: { path: '^services/all-in-one/' },
      to: {
        path: '^services/[^/]+/',
        pathNot: ['^services/all-in-one/', '^services/[^/]+/src/(service|config)\\.ts$'],
      },
    },
    {
      name: 'no-package-to-service-imports',
      severity: 'error',
      comment: 'packages/ are shared libraries: they never depend on a service.',
      from: { path: '^packages/' },
      to: { path: '^services/' },
    },
    {
      name: 'contracts-gen-only-through-contracts',
      severity: 'error',
      comment:
        'ts-proto output (packages/contracts/src/gen) is imported only by @cardlens/contracts itself; ' +
        'everyone else imports the package ("@cardlens/contracts").',
      from: { pathNot: '^packages/contracts/src/' },
      to: { path: '^packages/contracts/src/gen/' },
    },
    {
      name: 'service-generated-only-from-own-src',
      severity: 'error',
      comment:
        "A service's generated code (services/<name>/src/generated: the Prisma client) is imported only " +
        'from that same service\'s src/ (normally through its src/db.ts).',
      from: { path: '^(services/[^/]+)/src/' },
      to: { path: '^services/[^/]+/src/generated/', pathNot: '^$1/src/generated/' },
    },
    {
      name: 'service-generated-not-from-outside-src',
      severity: 'error',
      comment:
        "A service's generated code is imported only from that service's src/ (tests, other services and " +
        'packages go through the service\'s own modules).',
      from: { pathNot: '^services/[^/]+/src/' },
      to: { path: '^services/[^/]+/src/generated/' },
    },
    {
      name: 'generated-only-within-its-workspace',
      severity: 'error',
      comment:
        'Any other generated folder (e.g. Prisma clients of test fixtures) stays private to the workspace ' +
        'that generates it.',
      from: { path: '^((packages|services)/[^/]+)/' },
      to: { path: '^(packages|services)/.+/generated/', pathNot: '^$1/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Circular dependencies make start-up order and testing fragile; extract the shared part.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-dev-dependencies-in-production-code',
      severity: 'error',
      comment:
        "Production source must not import a package that is only a devDependency of its workspace " +
        '(or of the root). Tests may.',
      from: { path: '^(packages|services)/', pathNot: TEST },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-undeclared-packages',
      severity: 'error',
      comment:
        'Production code imports (at run time) only npm packages its own workspace declares; relying on a ' +
        'package hoisted for another workspace breaks as soon as that one drops it. Type-only imports are ' +
        'erased at run time and are not judged; tests may lean on the hoisted tree.',
      from: { path: '^(packages|services)/', pathNot: TEST },
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment:
        'Every import must resolve, otherwise the rules above cannot see where it goes. Git-ignored ' +
        'generated folders are exempt so that a fresh clone lints before `npm run generate`.',
      from: {},
      to: { couldNotResolve: true, pathNot: '/generated/' },
    },
  ],
  options: {
    // Do not scan dependencies or generated clients, but still record (and judge) imports into them.
    doNotFollow: {
      path: ['(^|/)node_modules/', '(^|/)src/generated/', '(^|/)test/generated/'],
    },
    exclude: {
      // Our own build output and throwaway experiments (anchored to the workspaces: a `dist/` inside
      // node_modules is a package's real entry point and must stay visible).
      path: '^(packages|services)/[^/]+/(dist|coverage|\\.turbo|\\.scratch|scratch)/',
    },
    moduleSystems: ['es6', 'cjs'],
    // Count `import type` too: a type-only import of another service is still a coupling.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    // Devdependencies are judged per workspace: the nearest package.json, then the root's.
    combinedDependencies: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      // As Node resolves an ESM `import` (every workspace is "type": "module").
      conditionNames: ['import', 'node', 'default'],
      extensions: ['.ts', '.tsx', '.d.ts', '.js', '.mjs', '.cjs', '.json'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    skipAnalysisNotInRules: true,
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
