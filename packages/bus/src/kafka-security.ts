import { readFileSync } from 'node:fs';
import type { KafkaConfig, SASLOptions } from 'kafkajs';

/** How a KafkaBus reaches brokers that require TLS and/or SASL (parsed from the environment by @cardlens/config). */
export interface KafkaSecurity {
  tls?: { caFile?: string | undefined; certFile?: string | undefined; keyFile?: string | undefined; rejectUnauthorized: boolean } | undefined;
  sasl?:
    | { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string }
    | { mechanism: 'aws-msk-iam'; region: string }
    | undefined;
}

/**
 * kafkajs' `ssl` and `sasl` options. PEM files are read once here (a missing file fails at startup, not at the
 * first reconnect). AWS MSK IAM is SASL/OAUTHBEARER with a token signed by AWS's own signer library
 * (aws-msk-iam-sasl-signer-js), loaded only when that mechanism is chosen; kafkajs asks for a new token on every
 * (re)authentication.
 */
export function kafkaSecurityOptions(security: KafkaSecurity | undefined): Pick<KafkaConfig, 'ssl' | 'sasl'> {
  if (!security) return {};
  const { tls, sasl } = security;
  const ssl = tls
    ? {
        rejectUnauthorized: tls.rejectUnauthorized,
        ...(tls.caFile ? { ca: [readFileSync(tls.caFile, 'utf8')] } : {}),
        ...(tls.certFile ? { cert: readFileSync(tls.certFile, 'utf8') } : {}),
        ...(tls.keyFile ? { key: readFileSync(tls.keyFile, 'utf8') } : {}),
      }
    : undefined;
  let saslOptions: SASLOptions | undefined;
  if (sasl?.mechanism === 'aws-msk-iam') {
    const region = sasl.region;
    saslOptions = {
      mechanism: 'oauthbearer',
      oauthBearerProvider: async () => {
        const { generateAuthToken } = await import('aws-msk-iam-sasl-signer-js');
        const { token } = await generateAuthToken({ region });
        return { value: token };
      },
    };
  } else if (sasl) {
    saslOptions = { mechanism: sasl.mechanism, username: sasl.username, password: sasl.password } as SASLOptions;
  }
  return { ...(ssl ? { ssl } : {}), ...(saslOptions ? { sasl: saslOptions } : {}) };
}
