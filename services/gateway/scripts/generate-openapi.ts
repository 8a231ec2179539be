// Writes openapi/openapi.yaml from the zod contract (src/contract). Run by `npm run generate` (turbo); CI's drift
// check (.ci/check-generated.sh) then fails when the committed file differs. `--check` only compares.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderOpenApiYaml } from '../src/contract/render';

const target = fileURLToPath(new URL('../openapi/openapi.yaml', import.meta.url));
const yaml = renderOpenApiYaml();
if (process.argv.includes('--check')) {
  if (readFileSync(target, 'utf8') !== yaml) {
    process.stderr.write('openapi/openapi.yaml is out of date: run `npm run generate -w @cardlens/gateway`\n');
    process.exit(1);
  }
} else {
  writeFileSync(target, yaml);
  process.stdout.write(`wrote ${target}\n`);
}
