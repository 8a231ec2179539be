import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { describeWithInfra } from '@cardlens/testing';
import { metricsRegistry } from '@cardlens/telemetry';
import { KafkaBus, type BusMessage, type KafkaSecurity } from '../src/index';
import { bytes, text, waitFor } from './support';

// TLS and SASL against a real broker: a private one (.ci/kafka.sh on its own ports and data directory) with a
// SASL_SSL listener whose certificate keytool made for 127.0.0.1, and SCRAM users stored at format time.

const run = promisify(execFile);
const kafkaScript = fileURLToPath(new URL('../../../.ci/kafka.sh', import.meta.url));
const PORT = 19_592;
const SECURE = `127.0.0.1:${PORT + 2}`;
const USER = 'cardlens';
const PASSWORD = 'bus-test-secret';

describeWithInfra('kafka', 'KafkaBus over TLS with SASL (private broker)', () => {
  const workDir = mkdtempSync(path.join(tmpdir(), 'cardlens-kafka-tls-'));
  const env = {
    ...process.env,
    KAFKA_PORT: String(PORT),
    KAFKA_CONTROLLER_PORT: String(PORT + 1),
    KAFKA_SASL_SSL_PORT: String(PORT + 2),
    KAFKA_SASL_USER: USER,
    KAFKA_SASL_PASSWORD: PASSWORD,
    KAFKA_WORK_DIR: workDir,
    KAFKA_HEAP_OPTS: '-Xms128m -Xmx384m',
  };
  const caFile = path.join(workDir, 'tls', 'ca.pem');
  const buses: KafkaBus[] = [];

  beforeAll(async () => {
    await run('bash', [kafkaScript, 'start'], { env, timeout: 180_000 });
  }, 200_000);

  afterAll(async () => {
    await Promise.all(buses.map((b) => b.stop().catch(() => undefined)));
    await run('bash', [kafkaScript, 'stop'], { env, timeout: 60_000 }).catch(() => undefined);
    rmSync(workDir, { recursive: true, force: true });
  }, 90_000);

  const bus = (security: KafkaSecurity, topic: string) => {
    const created = new KafkaBus({ brokers: [SECURE], clientId: 'bus-tls-test', security, topics: [topic] });
    buses.push(created);
    return created;
  };

  it.each(['scram-sha-512', 'scram-sha-256', 'plain'] as const)('%s over TLS (CA file, verified): publishes and consumes', async (mechanism) => {
    const topic = `tls-${mechanism}`;
    const secured = bus({ tls: { caFile, rejectUnauthorized: true }, sasl: { mechanism, username: USER, password: PASSWORD } }, topic);
    const received: string[] = [];
    await secured.subscribe({ topic, groupId: `tls-${mechanism}`, handler: async (m: BusMessage) => void received.push(text(m.value)) });
    await secured.start();
    await secured.publish(topic, [{ key: 'k', value: bytes(`over ${mechanism}`) }]);
    await waitFor(() => received.length === 1, 30_000, 'the message back');
    expect(received).toEqual([`over ${mechanism}`]);
    // Consumer lag is reported per topic, group and partition after each batch.
    const lag = async () => metricsRegistry.getSingleMetricAsString('cardlens_kafka_consumer_lag_messages');
    await waitFor(async () => (await lag()).includes(`topic="${topic}"`), 10_000, 'the consumer lag gauge');
    expect(await lag()).toMatch(new RegExp(`cardlens_kafka_consumer_lag_messages\\{topic="${topic}",group="tls-${mechanism}",partition="\\d+"\\} 0`));
    await secured.stop();
  }, 60_000);

  it('a wrong password fails start() with an authentication error, not a hang', async () => {
    const refused = bus({ tls: { caFile, rejectUnauthorized: true }, sasl: { mechanism: 'scram-sha-512', username: USER, password: 'wrong' } }, 'tls-refused');
    await expect(refused.start()).rejects.toThrow(/auth|SASL|credentials/i);
  }, 60_000);

  it("a broker whose certificate is not signed by a trusted CA is refused (verification is on by default)", async () => {
    const untrusted = bus({ tls: { rejectUnauthorized: true }, sasl: { mechanism: 'scram-sha-512', username: USER, password: PASSWORD } }, 'tls-untrusted');
    await expect(untrusted.start()).rejects.toThrow(/certificate|self.signed|connect/i);
  }, 60_000);
});
