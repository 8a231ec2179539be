import * as billingEventsV1 from './gen/cardlens/billing/v1/events';
import * as scansEventsV1 from './gen/cardlens/scans/v1/events';
import * as valuationEventsV1 from './gen/cardlens/valuation/v1/events';

/**
 * One Kafka topic per event message. The topic is the message's fully-qualified protobuf name, the
 * record value is the binary-encoded message, and the bus supplies id, key and trace headers, so no
 * envelope message is needed.
 */
export interface EventContract<T> {
  readonly topic: string;
  encode(message: T): Uint8Array;
  decode(value: Uint8Array): T;
}

interface Codec<T> {
  encode(message: T): { finish(): Uint8Array };
  decode(input: Uint8Array): T;
}

function eventContract<T>(protobufPackage: string, messageName: string, codec: Codec<T>): EventContract<T> {
  return {
    topic: `${protobufPackage}.${messageName}`,
    encode: (message) => codec.encode(message).finish(),
    decode: (value) => codec.decode(value),
  };
}

export const events = {
  /** scans outbox -> scan worker. Key: scan id. */
  scanJobRequested: eventContract(scansEventsV1.protobufPackage, 'ScanJobRequested', scansEventsV1.ScanJobRequested),
  /** scan worker -> scans. Key: scan id. */
  scanStatusChanged: eventContract(scansEventsV1.protobufPackage, 'ScanStatusChanged', scansEventsV1.ScanStatusChanged),
  /** billing webhook -> billing (grants, subscription access) and accounts (tier paid). Key: agent id. */
  paymentConfirmationReceived: eventContract(
    billingEventsV1.protobufPackage,
    'PaymentConfirmationReceived',
    billingEventsV1.PaymentConfirmationReceived,
  ),
  /** billing ledger -> gateway (drops its cached balance of the agent). Key: agent id. */
  balanceChanged: eventContract(billingEventsV1.protobufPackage, 'BalanceChanged', billingEventsV1.BalanceChanged),
  /** billing (subscription, allowance, checkout writes; the sandbox clock) -> gateway (drops its cached subscription view). Key: agent id. */
  subscriptionChanged: eventContract(billingEventsV1.protobufPackage, 'SubscriptionChanged', billingEventsV1.SubscriptionChanged),
  /** sales feeds -> valuation. Key: card id. */
  salesRecord: eventContract(valuationEventsV1.protobufPackage, 'SalesRecord', valuationEventsV1.SalesRecord),
} as const;
