import { afterEach, describe, expect, it } from '@jest/globals';
import { infraUrls, uniqueRedisPrefix, uniqueTopicPrefix, databaseUrlFor, randomSuffix } from '../src/index';

const saved = { ...process.env };
afterEach(() => {
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'KAFKA_BROKERS']) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

describe('infraUrls', () => {
  it('defaults to the local services', () => {
    delete process.env.DATABASE_URL;
    delete process.env.REDIS_URL;
    process.env.KAFKA_BROKERS = '';
    expect(infraUrls()).toEqual({
      databaseUrl: 'postgresql://postgres@127.0.0.1:5432/postgres',
      redisUrl: 'redis://127.0.0.1:6379',
      kafkaBrokers: ['127.0.0.1:9092'],
    });
  });

  it('reads the environment at call time', () => {
    process.env.DATABASE_URL = 'postgresql://u@db:6543/x';
    process.env.REDIS_URL = 'redis://cache:7000';
    process.env.KAFKA_BROKERS = 'k1:9092, k2:9093';
    expect(infraUrls()).toEqual({
      databaseUrl: 'postgresql://u@db:6543/x',
      redisUrl: 'redis://cache:7000',
      kafkaBrokers: ['k1:9092', 'k2:9093'],
    });
  });
});

describe('isolation names', () => {
  it('topic prefixes are unique and legal Kafka names', () => {
    const a = uniqueTopicPrefix('Outbox Relay!');
    const b = uniqueTopicPrefix('Outbox Relay!');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^t-outbox-relay-[0-9a-f]{10}\.$/);
    expect(`${a}scans.requested`).toMatch(/^[a-zA-Z0-9._-]{1,249}$/);
  });

  it('redis prefixes are unique', () => {
    expect(uniqueRedisPrefix()).toMatch(/^t:[0-9a-f]{10}:$/);
    expect(uniqueRedisPrefix('rate')).toMatch(/^t:rate:[0-9a-f]{10}:$/);
    expect(new Set(Array.from({ length: 100 }, () => randomSuffix())).size).toBe(100);
  });

  it('databaseUrlFor keeps credentials and options', () => {
    expect(databaseUrlFor('postgresql://u:p@h:5432/postgres?sslmode=disable', 'cardlens_t_x')).toBe(
      'postgresql://u:p@h:5432/cardlens_t_x?sslmode=disable',
    );
  });
});
