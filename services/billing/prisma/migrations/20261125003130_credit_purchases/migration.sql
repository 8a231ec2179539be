-- CreateTable
CREATE TABLE "billing"."checkout_sessions" (
    "id" UUID NOT NULL,
    "agent_id" INTEGER NOT NULL,
    "pack" VARCHAR(64) NOT NULL,
    "credits" INTEGER NOT NULL,
    "price_cents" INTEGER NOT NULL,
    "currency" VARCHAR(3) NOT NULL,
    "provider" VARCHAR(16) NOT NULL,
    "provider_session_id" VARCHAR(255),
    "url" TEXT,
    "state" VARCHAR(16) NOT NULL,
    "open_slot" VARCHAR(100),
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "payment_intent_id" VARCHAR(255),
    "paid_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "checkout_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "billing"."payment_events" (
    "id" VARCHAR(255) NOT NULL,
    "type" VARCHAR(100) NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "source" VARCHAR(16) NOT NULL,
    "checkout_session_id" VARCHAR(255),
    "payment_intent_id" VARCHAR(255),
    "confirms_payment" BOOLEAN NOT NULL,
    "summary" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "payment_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "billing"."sandbox_objects" (
    "id" VARCHAR(255) NOT NULL,
    "type" VARCHAR(32) NOT NULL,
    "data" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sandbox_objects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "billing"."outbox" (
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
CREATE TABLE "billing"."processed_messages" (
    "consumer_group" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "processed_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "processed_messages_pkey" PRIMARY KEY ("consumer_group","message_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "checkout_sessions_provider_session_id_key" ON "billing"."checkout_sessions"("provider_session_id");

-- CreateIndex
CREATE UNIQUE INDEX "checkout_sessions_open_slot_key" ON "billing"."checkout_sessions"("open_slot");

-- CreateIndex
CREATE INDEX "checkout_sessions_agent_id_created_at_idx" ON "billing"."checkout_sessions"("agent_id", "created_at");

-- CreateIndex
CREATE INDEX "payment_events_checkout_session_id_idx" ON "billing"."payment_events"("checkout_session_id");

-- CreateIndex
CREATE INDEX "payment_events_occurred_at_idx" ON "billing"."payment_events"("occurred_at");

-- CreateIndex
CREATE INDEX "sandbox_objects_type_created_at_idx" ON "billing"."sandbox_objects"("type", "created_at");

-- CreateIndex
CREATE INDEX "outbox_published_at_created_at_idx" ON "billing"."outbox"("published_at", "created_at");

-- Invariants the database guarantees (Prisma does not model CHECK constraints, and drift checks ignore them).
ALTER TABLE "billing"."checkout_sessions" ADD CONSTRAINT "checkout_sessions_state_valid" CHECK ("state" IN ('creating', 'open', 'processing', 'paid', 'expired', 'failed'));
ALTER TABLE "billing"."checkout_sessions" ADD CONSTRAINT "checkout_sessions_open_slot_only_while_open" CHECK (("open_slot" IS NULL) OR ("state" IN ('creating', 'open')));
ALTER TABLE "billing"."checkout_sessions" ADD CONSTRAINT "checkout_sessions_paid_has_time" CHECK (("state" <> 'paid') OR ("paid_at" IS NOT NULL));
