import { describe, it, expect } from '@jest/globals';
import { loadConfig, ConfigError, env, kafkaConnectionFields, kafkaConnectionRules, kafkaSecurity, z } from './index';

const schema = z.object({ PORT: env.port(8080), FEATURE: env.bool(false), BASE_URL: env.url() });

describe('loadConfig', () => {
  it('parses and applies defaults', () => {
    expect(loadConfig(schema, { BASE_URL: 'http://localhost:8080' })).toEqual({ PORT: 8080, FEATURE: false, BASE_URL: 'http://localhost:8080' });
    expect(loadConfig(schema, { BASE_URL: 'http://x', PORT: '99', FEATURE: 'yes' })).toMatchObject({ PORT: 99, FEATURE: true });
  });

  it('fails fast listing every invalid variable', () => {
    expect(() => loadConfig(schema, { PORT: 'abc', FEATURE: 'maybe' }, 'gateway')).toThrow(ConfigError);
    try {
      loadConfig(schema, { PORT: 'abc', FEATURE: 'maybe' }, 'gateway');
    } catch (e) {
      const message = (e as Error).message;
      expect(message).toContain('gateway');
      expect(message).toContain('PORT');
      expect(message).toContain('FEATURE');
      expect(message).toContain('BASE_URL');
    }
  });
});

describe('Kafka connection settings', () => {
  const kafka = z.object(kafkaConnectionFields).superRefine(kafkaConnectionRules);
  const problems = (source: Record<string, string>) => {
    try {
      loadConfig(kafka, source, 'svc');
      return '';
    } catch (e) {
      return (e as Error).message;
    }
  };

  it('plaintext by default: no TLS, no SASL', () => {
    expect(kafkaSecurity(loadConfig(kafka, { KAFKA_BROKERS: 'a:9092, b:9092' }))).toEqual({ tls: undefined, sasl: undefined });
  });

  it('SCRAM over TLS with a CA file and mutual TLS', () => {
    const config = loadConfig(kafka, {
      KAFKA_SSL: 'true', KAFKA_SSL_CA_FILE: '/etc/kafka/ca.pem', KAFKA_SSL_CERT_FILE: '/c.pem', KAFKA_SSL_KEY_FILE: '/k.pem',
      KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'svc', KAFKA_SASL_PASSWORD: 'pw',
    });
    expect(kafkaSecurity(config)).toEqual({
      tls: { caFile: '/etc/kafka/ca.pem', certFile: '/c.pem', keyFile: '/k.pem', rejectUnauthorized: true },
      sasl: { mechanism: 'scram-sha-512', username: 'svc', password: 'pw' },
    });
  });

  it('refuses incomplete or unsafe combinations, naming the variable', () => {
    expect(problems({ KAFKA_SASL_MECHANISM: 'scram-sha-256' })).toMatch(/KAFKA_SASL_USERNAME: required[\s\S]*KAFKA_SASL_PASSWORD: required/);
    expect(problems({ KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' })).toMatch(/KAFKA_SSL: SASL PLAIN/);
    expect(problems({ KAFKA_SASL_MECHANISM: 'aws-msk-iam' })).toMatch(/KAFKA_AWS_REGION: required[\s\S]*KAFKA_SSL/);
    expect(problems({ KAFKA_SASL_USERNAME: 'u' })).toMatch(/KAFKA_SASL_MECHANISM: required/);
    expect(problems({ KAFKA_SSL: 'true', KAFKA_SSL_CERT_FILE: '/c.pem' })).toMatch(/KAFKA_SSL_KEY_FILE/);
    expect(problems({ KAFKA_SSL_CA_FILE: '/ca.pem' })).toMatch(/KAFKA_SSL: TLS files are set/);
    expect(problems({ KAFKA_SASL_MECHANISM: 'gssapi' })).toMatch(/KAFKA_SASL_MECHANISM/);
  });

  it('AWS MSK IAM needs only the region (credentials come from the AWS SDK chain)', () => {
    expect(kafkaSecurity(loadConfig(kafka, { KAFKA_SSL: 'true', KAFKA_SASL_MECHANISM: 'aws-msk-iam', KAFKA_AWS_REGION: 'eu-west-1' })).sasl).toEqual({ mechanism: 'aws-msk-iam', region: 'eu-west-1' });
  });
});
