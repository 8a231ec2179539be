/**
 * The two bus tables every service owns in its Postgres schema. Copy the models into the service's
 * schema.prisma, replacing SERVICE_SCHEMA with the service's schema name (e.g. "billing"); the
 * migration tool then produces exactly the SQL below (test/outbox-schema.test.ts checks both).
 *
 * ```prisma
 * /// Transactional outbox (@cardlens/bus): rows written with the state change, published by OutboxRelay.
 * model OutboxMessage {
 *   id          String    @id @db.Uuid
 *   topic       String
 *   key         String
 *   payload     Bytes
 *   headers     Json      @default("{}")
 *   createdAt   DateTime  @default(now()) @map("created_at") @db.Timestamptz(6)
 *   publishedAt DateTime? @map("published_at") @db.Timestamptz(6)
 *
 *   @@index([publishedAt, createdAt])
 *   @@map("outbox")
 *   @@schema("SERVICE_SCHEMA")
 * }
 *
 * /// Messages a consumer group has applied (@cardlens/bus idempotentConsumer), keyed by message id.
 * model ProcessedMessage {
 *   consumerGroup String   @map("consumer_group")
 *   messageId     String   @map("message_id")
 *   processedAt   DateTime @default(now()) @map("processed_at") @db.Timestamptz(6)
 *
 *   @@id([consumerGroup, messageId])
 *   @@map("processed_messages")
 *   @@schema("SERVICE_SCHEMA")
 * }
 * ```
 *
 * ```sql
 * CREATE TABLE "SERVICE_SCHEMA"."outbox" (
 *     "id" UUID NOT NULL,
 *     "topic" TEXT NOT NULL,
 *     "key" TEXT NOT NULL,
 *     "payload" BYTEA NOT NULL,
 *     "headers" JSONB NOT NULL DEFAULT '{}',
 *     "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
 *     "published_at" TIMESTAMPTZ(6),
 *
 *     CONSTRAINT "outbox_pkey" PRIMARY KEY ("id")
 * );
 *
 * CREATE TABLE "SERVICE_SCHEMA"."processed_messages" (
 *     "consumer_group" TEXT NOT NULL,
 *     "message_id" TEXT NOT NULL,
 *     "processed_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
 *
 *     CONSTRAINT "processed_messages_pkey" PRIMARY KEY ("consumer_group","message_id")
 * );
 *
 * CREATE INDEX "outbox_published_at_created_at_idx" ON "SERVICE_SCHEMA"."outbox"("published_at", "created_at");
 * ```
 *
 * The relay's query (`published_at IS NULL ORDER BY created_at`) is served by the (published_at,
 * created_at) index without a partial index, which Prisma models only behind a preview feature.
 */
export const BUS_PRISMA_MODELS = `/// Transactional outbox (@cardlens/bus): rows written with the state change, published by OutboxRelay.
model OutboxMessage {
  id          String    @id @db.Uuid
  topic       String
  key         String
  payload     Bytes
  headers     Json      @default("{}")
  createdAt   DateTime  @default(now()) @map("created_at") @db.Timestamptz(6)
  publishedAt DateTime? @map("published_at") @db.Timestamptz(6)

  @@index([publishedAt, createdAt])
  @@map("outbox")
  @@schema("SERVICE_SCHEMA")
}

/// Messages a consumer group has applied (@cardlens/bus idempotentConsumer), keyed by message id.
model ProcessedMessage {
  consumerGroup String   @map("consumer_group")
  messageId     String   @map("message_id")
  processedAt   DateTime @default(now()) @map("processed_at") @db.Timestamptz(6)

  @@id([consumerGroup, messageId])
  @@map("processed_messages")
  @@schema("SERVICE_SCHEMA")
}
`;

export const BUS_TABLES_SQL = `CREATE TABLE "SERVICE_SCHEMA"."outbox" (
    "id" UUID NOT NULL,
    "topic" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "payload" BYTEA NOT NULL,
    "headers" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "published_at" TIMESTAMPTZ(6),

    CONSTRAINT "outbox_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "SERVICE_SCHEMA"."processed_messages" (
    "consumer_group" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "processed_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "processed_messages_pkey" PRIMARY KEY ("consumer_group","message_id")
);

CREATE INDEX "outbox_published_at_created_at_idx" ON "SERVICE_SCHEMA"."outbox"("published_at", "created_at");
`;

/** The snippet or the SQL for one schema. */
export const forSchema = (text: string, schema: string): string => text.replaceAll('SERVICE_SCHEMA', schema);
