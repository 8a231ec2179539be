import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const kafkaScript = fileURLToPath(new URL('../../../.ci/kafka.sh', import.meta.url));

/**
 * A Kafka broker of one test's own (.ci/kafka.sh on other ports, with its own data directory), so the test can
 * stop it and start it again without disturbing the suites that share the CI broker. Every start formats fresh
 * storage: a restart is a broker rebuilt without its data (topics, offsets and messages gone).
 */
export class PrivateKafka {
  readonly address: string;
  private readonly env: NodeJS.ProcessEnv;
  private readonly workDir = mkdtempSync(path.join(tmpdir(), 'cardlens-kafka-'));

  constructor(port: number) {
    this.address = `127.0.0.1:${port}`;
    this.env = { ...process.env, KAFKA_PORT: String(port), KAFKA_CONTROLLER_PORT: String(port + 1), KAFKA_WORK_DIR: this.workDir, KAFKA_HEAP_OPTS: '-Xms128m -Xmx384m' };
  }

  async start(): Promise<void> {
    await run('bash', [kafkaScript, 'start'], { env: this.env, timeout: 180_000 });
  }

  async stop(): Promise<void> {
    await run('bash', [kafkaScript, 'stop'], { env: this.env, timeout: 60_000 });
  }

  async dispose(): Promise<void> {
    await this.stop().catch(() => {});
    rmSync(this.workDir, { recursive: true, force: true });
  }
}
