-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "billing";

-- CreateTable
CREATE TABLE "billing"."credit_accounts" (
    "agent_id" INTEGER NOT NULL,
    "balance" INTEGER NOT NULL DEFAULT 0,
    "has_purchased" BOOLEAN NOT NULL DEFAULT false,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "credit_accounts_pkey" PRIMARY KEY ("agent_id")
);

-- CreateTable
CREATE TABLE "billing"."ledger_entries" (
    "id" BIGSERIAL NOT NULL,
    "agent_id" INTEGER NOT NULL,
    "kind" VARCHAR(16) NOT NULL,
    "amount" INTEGER NOT NULL,
    "balance_after" INTEGER NOT NULL,
    "cause_type" VARCHAR(32) NOT NULL,
    "cause_id" VARCHAR(128) NOT NULL,
    "refund_of_id" BIGINT,
    "idempotency_key" VARCHAR(200) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ledger_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "billing"."trial_pool_days" (
    "day" DATE NOT NULL,
    "granted" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "trial_pool_days_pkey" PRIMARY KEY ("day")
);

-- CreateIndex
CREATE UNIQUE INDEX "ledger_entries_refund_of_id_key" ON "billing"."ledger_entries"("refund_of_id");

-- CreateIndex
CREATE UNIQUE INDEX "ledger_entries_idempotency_key_key" ON "billing"."ledger_entries"("idempotency_key");

-- CreateIndex
CREATE INDEX "ledger_entries_agent_id_id_idx" ON "billing"."ledger_entries"("agent_id", "id");

-- AddForeignKey
ALTER TABLE "billing"."ledger_entries" ADD CONSTRAINT "ledger_entries_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "billing"."credit_accounts"("agent_id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Ledger invariants the database itself guarantees (Prisma does not model CHECK constraints, and drift checks ignore them).
ALTER TABLE "billing"."credit_accounts" ADD CONSTRAINT "credit_accounts_balance_non_negative" CHECK ("balance" >= 0);
ALTER TABLE "billing"."ledger_entries" ADD CONSTRAINT "ledger_entries_kind_valid" CHECK ("kind" IN ('grant', 'debit', 'refund', 'purchase'));
ALTER TABLE "billing"."ledger_entries" ADD CONSTRAINT "ledger_entries_amount_sign" CHECK (
  ("kind" = 'debit' AND "amount" < 0) OR ("kind" <> 'debit' AND "amount" >= 0)
);
ALTER TABLE "billing"."ledger_entries" ADD CONSTRAINT "ledger_entries_balance_after_non_negative" CHECK ("balance_after" >= 0);
