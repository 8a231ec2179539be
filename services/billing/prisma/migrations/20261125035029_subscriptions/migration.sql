-- CreateTable
CREATE TABLE "billing"."subscription_checkouts" (
    "id" UUID NOT NULL,
    "agent_id" INTEGER NOT NULL,
    "plan" VARCHAR(64) NOT NULL,
    "price_cents" INTEGER NOT NULL,
    "trial_days" INTEGER NOT NULL,
    "provider" VARCHAR(16) NOT NULL,
    "provider_session_id" VARCHAR(255),
    "url" TEXT,
    "state" VARCHAR(16) NOT NULL,
    "open_slot" VARCHAR(32),
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "subscription_id" VARCHAR(255),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "subscription_checkouts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "billing"."trial_uses" (
    "agent_id" INTEGER NOT NULL,
    "checkout_id" UUID,
    "subscription_id" VARCHAR(255),
    "claimed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),

    CONSTRAINT "trial_uses_pkey" PRIMARY KEY ("agent_id")
);

-- CreateTable
CREATE TABLE "billing"."plan_prices" (
    "price_id" VARCHAR(255) NOT NULL,
    "plan" VARCHAR(64) NOT NULL,
    "price_cents" INTEGER NOT NULL,
    "lookup_key" VARCHAR(200) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "plan_prices_pkey" PRIMARY KEY ("price_id")
);

-- CreateTable
CREATE TABLE "billing"."plan_price_announcements" (
    "plan" VARCHAR(64) NOT NULL,
    "price_cents" INTEGER NOT NULL,
    "effective_at" TIMESTAMPTZ(3) NOT NULL,
    "announced_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "plan_price_announcements_pkey" PRIMARY KEY ("plan","price_cents","effective_at")
);

-- CreateTable
CREATE TABLE "billing"."subscriptions" (
    "id" VARCHAR(255) NOT NULL,
    "agent_id" INTEGER NOT NULL,
    "customer_id" VARCHAR(255),
    "plan" VARCHAR(64),
    "price_id" VARCHAR(255),
    "provider_status" VARCHAR(32) NOT NULL,
    "trial_start" TIMESTAMPTZ(3),
    "trial_end" TIMESTAMPTZ(3),
    "current_period_start" TIMESTAMPTZ(3),
    "current_period_end" TIMESTAMPTZ(3),
    "cancel_at_period_end" BOOLEAN NOT NULL DEFAULT false,
    "canceled_at" TIMESTAMPTZ(3),
    "ended_at" TIMESTAMPTZ(3),
    "cancellation_reason" VARCHAR(32),
    "schedule_id" VARCHAR(255),
    "pending_plan" VARCHAR(64),
    "pending_plan_effective_at" TIMESTAMPTZ(3),
    "provider_created_at" TIMESTAMPTZ(3) NOT NULL,
    "state_version" TIMESTAMPTZ(3) NOT NULL,
    "state_rank" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "subscriptions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "billing"."allowance_periods" (
    "id" BIGSERIAL NOT NULL,
    "agent_id" INTEGER NOT NULL,
    "subscription_id" VARCHAR(255) NOT NULL,
    "invoice_id" VARCHAR(255) NOT NULL,
    "plan" VARCHAR(64) NOT NULL,
    "granted" INTEGER NOT NULL,
    "used" INTEGER NOT NULL DEFAULT 0,
    "reserved" INTEGER NOT NULL DEFAULT 0,
    "period_start" TIMESTAMPTZ(3) NOT NULL,
    "period_end" TIMESTAMPTZ(3) NOT NULL,
    "amount_cents" INTEGER NOT NULL,
    "paid_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "allowance_periods_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "billing"."grade_reservations" (
    "id" BIGSERIAL NOT NULL,
    "agent_id" INTEGER NOT NULL,
    "grade_id" BIGINT NOT NULL,
    "source" VARCHAR(16) NOT NULL,
    "allowance_id" BIGINT,
    "subscription_id" VARCHAR(255) NOT NULL,
    "state" VARCHAR(16) NOT NULL,
    "reason" VARCHAR(64),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "settled_at" TIMESTAMPTZ(3),

    CONSTRAINT "grade_reservations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "subscription_checkouts_provider_session_id_key" ON "billing"."subscription_checkouts"("provider_session_id");

-- CreateIndex
CREATE UNIQUE INDEX "subscription_checkouts_open_slot_key" ON "billing"."subscription_checkouts"("open_slot");

-- CreateIndex
CREATE INDEX "subscription_checkouts_agent_id_created_at_idx" ON "billing"."subscription_checkouts"("agent_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "plan_prices_lookup_key_key" ON "billing"."plan_prices"("lookup_key");

-- CreateIndex
CREATE INDEX "subscriptions_agent_id_provider_created_at_idx" ON "billing"."subscriptions"("agent_id", "provider_created_at");

-- CreateIndex
CREATE UNIQUE INDEX "allowance_periods_invoice_id_key" ON "billing"."allowance_periods"("invoice_id");

-- CreateIndex
CREATE INDEX "allowance_periods_agent_id_period_end_idx" ON "billing"."allowance_periods"("agent_id", "period_end");

-- CreateIndex
CREATE UNIQUE INDEX "grade_reservations_grade_id_key" ON "billing"."grade_reservations"("grade_id");

-- CreateIndex
CREATE INDEX "grade_reservations_allowance_id_state_idx" ON "billing"."grade_reservations"("allowance_id", "state");

-- AddForeignKey
ALTER TABLE "billing"."grade_reservations" ADD CONSTRAINT "grade_reservations_allowance_id_fkey" FOREIGN KEY ("allowance_id") REFERENCES "billing"."allowance_periods"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- A period never hands out more grades than it granted, and counters never go negative.
ALTER TABLE "billing"."allowance_periods" ADD CONSTRAINT "allowance_periods_within_grant"
    CHECK ("used" >= 0 AND "reserved" >= 0 AND "used" + "reserved" <= "granted");
