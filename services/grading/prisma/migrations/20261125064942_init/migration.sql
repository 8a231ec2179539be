-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "grading";

-- CreateTable
CREATE TABLE "grading"."grades" (
    "id" BIGSERIAL NOT NULL,
    "agent_id" INTEGER NOT NULL,
    "idempotency_key" VARCHAR(64) NOT NULL,
    "status" VARCHAR(16) NOT NULL,
    "front_sha256" CHAR(64) NOT NULL,
    "back_sha256" CHAR(64) NOT NULL,
    "photo_fingerprint" CHAR(64) NOT NULL,
    "front_bytes" INTEGER NOT NULL,
    "back_bytes" INTEGER NOT NULL,
    "lock_token" BIGINT NOT NULL,
    "billing_source" VARCHAR(16),
    "grades_charged" INTEGER NOT NULL DEFAULT 0,
    "reservation_id" BIGINT,
    "billing" VARCHAR(16) NOT NULL DEFAULT 'none',
    "grading" JSONB,
    "refund_reason" VARCHAR(64),
    "analysis_ms" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),
    "refunded_at" TIMESTAMPTZ(3),

    CONSTRAINT "grades_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "grading"."agent_fences" (
    "agent_id" INTEGER NOT NULL,
    "token" BIGINT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "agent_fences_pkey" PRIMARY KEY ("agent_id")
);

-- CreateIndex
CREATE INDEX "grades_status_created_at_idx" ON "grading"."grades"("status", "created_at");

-- CreateIndex
CREATE INDEX "grades_billing_idx" ON "grading"."grades"("billing");

-- CreateIndex
CREATE UNIQUE INDEX "grades_agent_id_idempotency_key_key" ON "grading"."grades"("agent_id", "idempotency_key");

-- Invariants the database itself guarantees (Prisma does not model CHECK constraints, and drift checks ignore them).
ALTER TABLE "grading"."grades" ADD CONSTRAINT "grades_status_valid" CHECK ("status" IN ('processing', 'completed', 'refunded'));
ALTER TABLE "grading"."grades" ADD CONSTRAINT "grades_billing_valid" CHECK ("billing" IN ('none', 'pending', 'settled'));
ALTER TABLE "grading"."grades" ADD CONSTRAINT "grades_billing_source_valid" CHECK ("billing_source" IS NULL OR "billing_source" IN ('trial', 'subscription'));
ALTER TABLE "grading"."grades" ADD CONSTRAINT "grades_charged_range" CHECK ("grades_charged" IN (0, 1));
ALTER TABLE "grading"."grades" ADD CONSTRAINT "grades_refunded_uncharged" CHECK ("status" <> 'refunded' OR "grades_charged" = 0);
ALTER TABLE "grading"."grades" ADD CONSTRAINT "grades_completed_has_grading" CHECK ("status" <> 'completed' OR "grading" IS NOT NULL);
