/**
 * What an idle KafkaBus process spends on kafkajs' request-queue checks (src/kafkajs-idle-queue.ts): a producer,
 * an admin and one consumer group connected to a real broker, nothing published, measured over BENCH_SECONDS
 * (default 5), BENCH_RUNS times (default 3) as kafkajs ships and again with the checks stopped. Prints per run the
 * queue checks per second and the process's CPU (user + system, % of one core); the LAST line is one JSON object of
 * medians.
 *
 *   KAFKA_BROKERS=127.0.0.1:9092 npm run bench:idle-queue -w @cardlens/bus
 */
import { Kafka, logLevel } from 'kafkajs';
import { RequestQueue, stopIdleQueueChecks } from '../src/kafkajs-idle-queue';

const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const runs = Number(process.env.BENCH_RUNS ?? 3);

let checks = 0;
const check = RequestQueue.prototype.checkPendingRequests;
RequestQueue.prototype.checkPendingRequests = function counted(this: RequestQueue) {
  checks++;
  check.call(this);
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function idleFor(label: string): Promise<{ checksPerSecond: number; cpuPercent: number }> {
  const kafka = new Kafka({ clientId: 'bench-idle-queue', brokers, logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  const admin = kafka.admin();
  const consumer = kafka.consumer({ groupId: `bench-idle-queue-${process.pid}-${label}` });
  await Promise.all([producer.connect(), admin.connect(), consumer.connect()]);
  const topics = await admin.listTopics();
  if (topics[0]) await consumer.subscribe({ topics: [topics[0]] });
  await consumer.run({ eachMessage: async () => {} });
  await new Promise((r) => setTimeout(r, 1000)); // the group joined, connections settled
  checks = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const cpu = process.cpuUsage(cpu0);
  const ms = performance.now() - t0;
  const result = { checksPerSecond: Math.round((checks / ms) * 1000), cpuPercent: Math.round(((cpu.user + cpu.system) / 1000 / ms) * 1000) / 10 };
  await Promise.all([consumer.disconnect(), producer.disconnect(), admin.disconnect()]);
  console.log(label, JSON.stringify(result));
  return result;
}

const asShipped: { checksPerSecond: number; cpuPercent: number }[] = [];
for (let i = 0; i < runs; i++) asShipped.push(await idleFor('kafkajs as shipped'));
stopIdleQueueChecks();
const stopped: { checksPerSecond: number; cpuPercent: number }[] = [];
for (let i = 0; i < runs; i++) stopped.push(await idleFor('idle checks stopped'));
const summarise = (rs: typeof stopped) => ({ checksPerSecond: median(rs.map((r) => r.checksPerSecond)), cpuPercent: median(rs.map((r) => r.cpuPercent)) });
console.log(JSON.stringify({ seconds, runs, asShipped: summarise(asShipped), checksStopped: summarise(stopped) }));
process.exit(0);
