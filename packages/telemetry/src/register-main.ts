/**
 * The main-thread part of the preload entry `@cardlens/telemetry/register` (src/register.mjs), loaded with
 * `node --import tsx --import @cardlens/telemetry/register src/main.ts` (after tsx, so the ESM loader hook
 * below sees compiled JavaScript).
 *
 * Installs import-in-the-middle's loader hook in "only hooked modules" mode and enables the
 * instrumentations, before the application graph is loaded, so `import` of @grpc/grpc-js, kafkajs,
 * pino, http is patched as well as `require`. The SDK itself (service name, exporter) is started by the
 * service's main.ts with startTelemetry(); until then the instrumentations' spans are no-ops.
 */
import { register } from 'node:module';
import { createAddHookMessageChannel } from 'import-in-the-middle';
import { enableInstrumentations, markLoaderHookRegistered } from './instrumentations';

const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
enableInstrumentations();
markLoaderHookRegistered();
await waitForAllMessagesAcknowledged();
