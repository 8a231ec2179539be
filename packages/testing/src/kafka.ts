import { Kafka, logLevel } from 'kafkajs';
import { infraUrls } from './env';
import { randomSuffix, sanitizeLabel } from './ids';

/**
 * A topic-name prefix no other test run uses: `t-<random>.` or `t-<label>-<random>.` (Kafka topic names
 * allow [a-zA-Z0-9._-], at most 249 characters). Use it for topic names and consumer group ids.
 */
export function uniqueTopicPrefix(label?: string): string {
  const clean = label ? sanitizeLabel(label) : '';
  return `t-${clean ? `${clean}-` : ''}${randomSuffix()}.`;
}

/** Deletes every topic whose name starts with prefix; returns their names. */
export async function deleteTopicsWithPrefix(prefix: string, brokers = infraUrls().kafkaBrokers): Promise<string[]> {
  if (prefix.length === 0) throw new Error('deleteTopicsWithPrefix needs a non-empty prefix');
  const admin = new Kafka({ clientId: 'cardlens-testing-cleanup', brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(prefix));
    if (topics.length > 0) await admin.deleteTopics({ topics, timeout: 10_000 });
    return topics;
  } finally {
    await admin.disconnect();
  }
}
