-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "scans";

-- CreateTable
CREATE TABLE "scans"."scans" (
    "id" BIGSERIAL NOT NULL,
    "agent_id" INTEGER NOT NULL,
    "status" VARCHAR(16) NOT NULL,
    "modules" TEXT[],
    "credits_charged" INTEGER NOT NULL,
    "debit_entry_id" BIGINT,
    "settled_at" TIMESTAMPTZ(3),
    "progress_percent" INTEGER NOT NULL DEFAULT 0,
    "status_message" TEXT,
    "error" TEXT,
    "front_key" TEXT,
    "front_sha256" CHAR(64),
    "front_bytes" INTEGER,
    "front_type" VARCHAR(16),
    "back_key" TEXT,
    "back_sha256" CHAR(64),
    "back_bytes" INTEGER,
    "back_type" VARCHAR(16),
    "result_key" TEXT,
    "overlay_key" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "scans_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "scans"."idempotency_keys" (
    "agent_id" INTEGER NOT NULL,
    "key" VARCHAR(64) NOT NULL,
    "fingerprint" CHAR(64) NOT NULL,
    "scan_id" BIGINT NOT NULL,
    "state" VARCHAR(16) NOT NULL,
    "response" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("agent_id","key")
);

-- CreateTable
CREATE TABLE "scans"."outbox" (
    "id" UUID NOT NULL,
    "topic" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "payload" BYTEA NOT NULL,
    "headers" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "published_at" TIMESTAMPTZ(6),

    CONSTRAINT "outbox_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "scans"."processed_messages" (
    "consumer_group" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "processed_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "processed_messages_pkey" PRIMARY KEY ("consumer_group","message_id")
);

-- CreateIndex
CREATE INDEX "scans_agent_id_id_idx" ON "scans"."scans"("agent_id", "id");

-- CreateIndex
CREATE INDEX "scans_status_updated_at_idx" ON "scans"."scans"("status", "updated_at");

-- CreateIndex
CREATE INDEX "idempotency_keys_expires_at_idx" ON "scans"."idempotency_keys"("expires_at");

-- CreateIndex
CREATE INDEX "outbox_published_at_created_at_idx" ON "scans"."outbox"("published_at", "created_at");

-- Invariants the database itself guarantees (Prisma does not model CHECK constraints, and drift checks ignore them).
ALTER TABLE "scans"."scans" ADD CONSTRAINT "scans_status_valid" CHECK ("status" IN ('pending', 'queued', 'processing', 'completed', 'failed', 'abandoned'));
ALTER TABLE "scans"."scans" ADD CONSTRAINT "scans_progress_range" CHECK ("progress_percent" BETWEEN 0 AND 100);
ALTER TABLE "scans"."scans" ADD CONSTRAINT "scans_credits_non_negative" CHECK ("credits_charged" >= 0);
ALTER TABLE "scans"."idempotency_keys" ADD CONSTRAINT "idempotency_keys_state_valid" CHECK ("state" IN ('pending', 'completed', 'refunded'));
