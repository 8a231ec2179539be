// Exits 0 when the Kafka broker(s) in argv[2] (default 127.0.0.1:9092) answer a real metadata request
// (kafkajs admin: describeCluster + listTopics), 1 when they do not within argv[3] ms (default 5000),
// 2 when kafkajs is not installed yet (no `npm ci`). Used by .ci/kafka.sh to wait for the broker.
// With argv[4] === 'warm' it also looks up a group coordinator, which makes a fresh broker create and load
// __consumer_offsets now rather than during the first test's consumer join ("coordinator is loading").
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const brokers = (process.argv[2] ?? '127.0.0.1:9092').split(',');
const timeoutMs = Number(process.argv[3] ?? 5000);

let kafkajs;
try {
  kafkajs = createRequire(path.join(repoRoot, 'package.json'))('kafkajs');
} catch {
  process.exit(2);
}

const { Kafka, logLevel } = kafkajs;
const kafka = new Kafka({
  clientId: 'cardlens-ci-ready',
  brokers,
  logLevel: logLevel.NOTHING,
  connectionTimeout: Math.min(timeoutMs, 3000),
  requestTimeout: timeoutMs,
  retry: { retries: 0 },
});
const admin = kafka.admin();
const warm = process.argv[4] === 'warm';
const timer = setTimeout(() => process.exit(1), warm ? timeoutMs + 30_000 : timeoutMs + 1000);
try {
  await admin.connect();
  const cluster = await admin.describeCluster();
  await admin.listTopics();
  if (cluster.brokers.length === 0 || cluster.controller === null || cluster.controller < 0) process.exit(1);
  await admin.disconnect();
  if (warm) {
    const warmAdmin = new Kafka({ clientId: 'cardlens-ci-warm', brokers, logLevel: logLevel.NOTHING, retry: { retries: 20, initialRetryTime: 200, maxRetryTime: 2000 } }).admin();
    await warmAdmin.connect();
    await warmAdmin.describeGroups(['cardlens-ci-warmup']);
    await warmAdmin.disconnect();
  }
  clearTimeout(timer);
  process.exit(0);
} catch {
  process.exit(1);
}
