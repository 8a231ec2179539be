import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { kafkaSecurityOptions } from '../src/index';

describe('kafkaSecurityOptions', () => {
  it('nothing configured: plaintext, no SASL', () => {
    expect(kafkaSecurityOptions(undefined)).toEqual({});
    expect(kafkaSecurityOptions({})).toEqual({});
  });

  it('reads the PEM files once, at construction', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kafka-pem-'));
    writeFileSync(path.join(dir, 'ca.pem'), 'CA');
    writeFileSync(path.join(dir, 'c.pem'), 'CERT');
    writeFileSync(path.join(dir, 'k.pem'), 'KEY');
    const options = kafkaSecurityOptions({
      tls: { caFile: path.join(dir, 'ca.pem'), certFile: path.join(dir, 'c.pem'), keyFile: path.join(dir, 'k.pem'), rejectUnauthorized: true },
      sasl: { mechanism: 'scram-sha-256', username: 'u', password: 'p' },
    });
    expect(options).toEqual({ ssl: { rejectUnauthorized: true, ca: ['CA'], cert: 'CERT', key: 'KEY' }, sasl: { mechanism: 'scram-sha-256', username: 'u', password: 'p' } });
    expect(() => kafkaSecurityOptions({ tls: { caFile: path.join(dir, 'missing.pem'), rejectUnauthorized: true } })).toThrow(/ENOENT/);
  });

  it('AWS MSK IAM is SASL/OAUTHBEARER with a token provider (AWS signer, loaded on first use)', () => {
    const options = kafkaSecurityOptions({ tls: { rejectUnauthorized: true }, sasl: { mechanism: 'aws-msk-iam', region: 'eu-west-1' } });
    expect(options.ssl).toEqual({ rejectUnauthorized: true });
    expect(options.sasl).toMatchObject({ mechanism: 'oauthbearer' });
    expect(typeof (options.sasl as { oauthBearerProvider?: unknown }).oauthBearerProvider).toBe('function');
  });
});
