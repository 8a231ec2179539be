import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import pg from 'pg';
import { Redis } from 'ioredis';
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import {
  createTestDatabase,
  deleteRedisKeys,
  deleteTopicsWithPrefix,
  describeWithInfra,
  infraUrls,
  InfraUnavailableError,
  requireInfra,
  unreachableKindsSync,
  uniqueRedisPrefix,
  uniqueTopicPrefix,
  type InfraKind,
} from '../src/index';

const saved = { ...process.env };
const restoreEnv = () => {
  for (const name of ['CI', 'DATABASE_URL', 'REDIS_URL', 'KAFKA_BROKERS']) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
};

const deadEnv: Record<InfraKind, [string, string]> = {
  postgres: ['DATABASE_URL', 'postgresql://postgres@127.0.0.1:1/postgres'],
  redis: ['REDIS_URL', 'redis://127.0.0.1:1'],
  kafka: ['KAFKA_BROKERS', '127.0.0.1:1'],
};

describe('requireInfra when a service is down', () => {
  afterEach(() => {
    restoreEnv();
    jest.restoreAllMocks();
  });

  for (const kind of ['postgres', 'redis', 'kafka'] as const) {
    it(`${kind}: throws with CI=true`, async () => {
      const [name, value] = deadEnv[kind];
      process.env[name] = value;
      process.env.CI = 'true';
      await expect(requireInfra(kind)).rejects.toThrow(InfraUnavailableError);
      await expect(requireInfra(kind)).rejects.toThrow(/not reachable at .*127\.0\.0\.1:1.*CI=true/s);
    });

    it(`${kind}: warns and resolves false without CI`, async () => {
      const [name, value] = deadEnv[kind];
      process.env[name] = value;
      delete process.env.CI;
      const warn = jest.spyOn(console, 'warn').mockImplementation(() => {});
      await expect(requireInfra(kind)).resolves.toBe(false);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('SKIPPING'));
    });
  }

  it('unreachableKindsSync reports refused ports', () => {
    process.env.REDIS_URL = deadEnv.redis[1];
    process.env.KAFKA_BROKERS = deadEnv.kafka[1];
    expect(unreachableKindsSync(['postgres', 'redis', 'kafka']).sort()).toEqual(['kafka', 'redis']);
  });
});

describeWithInfra(['postgres', 'redis', 'kafka'], 'against the real services', () => {
  it('requireInfra resolves true and the sync probe finds every port open', async () => {
    for (const kind of ['postgres', 'redis', 'kafka'] as const) await expect(requireInfra(kind)).resolves.toBe(true);
    expect(unreachableKindsSync(['postgres', 'redis', 'kafka'])).toEqual([]);
  });

  it('createTestDatabase creates an isolated database and drop() removes it', async () => {
    const db = await createTestDatabase({ label: 'self-test' });
    expect(db.name).toMatch(/^cardlens_t_[0-9a-z]+_[0-9a-f]{10}_self_test$/);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ db: string }>('SELECT current_database() AS db');
      expect(rows[0]?.db).toBe(db.name);
      await client.query('CREATE TABLE t (id int)');
    } finally {
      await client.end();
    }
    // drop() also ends connections a test forgot to close.
    const leaked = new pg.Client({ connectionString: db.url });
    leaked.on('error', () => {});
    await leaked.connect();
    await db.drop();
    await db.drop();
    const admin = new pg.Client({ connectionString: infraUrls().databaseUrl });
    await admin.connect();
    try {
      const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [db.name]);
      expect(rowCount).toBe(0);
    } finally {
      await admin.end();
      await leaked.end().catch(() => {});
    }
  });

  it('two test databases do not see each other', async () => {
    const [a, b] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    try {
      expect(a.name).not.toBe(b.name);
      const ca = new pg.Client({ connectionString: a.url });
      const cb = new pg.Client({ connectionString: b.url });
      await Promise.all([ca.connect(), cb.connect()]);
      await ca.query('CREATE TABLE only_in_a (id int)');
      const { rows } = await cb.query("SELECT to_regclass('public.only_in_a') AS t");
      expect(rows[0]?.t).toBeNull();
      await Promise.all([ca.end(), cb.end()]);
    } finally {
      await Promise.all([a.drop(), b.drop()]);
    }
  });

  it('deleteRedisKeys removes only the prefixed keys', async () => {
    const prefix = uniqueRedisPrefix('self-test');
    const other = uniqueRedisPrefix('self-test');
    const redis = new Redis(infraUrls().redisUrl);
    try {
      await redis.mset(`${prefix}a`, '1', `${prefix}b`, '2', `${other}keep`, '3');
      expect(await deleteRedisKeys(prefix)).toBe(2);
      expect(await redis.exists(`${prefix}a`, `${prefix}b`)).toBe(0);
      expect(await redis.get(`${other}keep`)).toBe('3');
      expect(await deleteRedisKeys(other)).toBe(1);
    } finally {
      redis.disconnect();
    }
  });

  describe('kafka round trip', () => {
    const prefix = uniqueTopicPrefix('self-test');
    const topic = `${prefix}events`;
    const kafka = new Kafka({ clientId: 'cardlens-testing-test', brokers: infraUrls().kafkaBrokers, logLevel: logLevel.WARN });

    beforeAll(async () => {
      const admin = kafka.admin();
      await admin.connect();
      await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
      await admin.disconnect();
    });

    afterAll(async () => {
      expect(await deleteTopicsWithPrefix(prefix)).toEqual([topic]);
    });

    it('produces and consumes a message on a prefixed topic', async () => {
      const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
      const consumer = kafka.consumer({ groupId: `${prefix}group` });
      await Promise.all([producer.connect(), consumer.connect()]);
      try {
        await producer.send({ topic, messages: [{ key: 'k', value: 'hello' }] });
        await consumer.subscribe({ topic, fromBeginning: true });
        const value = await new Promise<string>((resolve) => {
          void consumer.run({ eachMessage: async ({ message }) => resolve(message.value?.toString() ?? '') });
        });
        expect(value).toBe('hello');
      } finally {
        await Promise.all([producer.disconnect(), consumer.disconnect()]);
      }
    });
  });
});
