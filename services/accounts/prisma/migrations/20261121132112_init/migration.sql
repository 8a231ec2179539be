-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "accounts";

-- CreateTable
CREATE TABLE "accounts"."agents" (
    "id" SERIAL NOT NULL,
    "name" VARCHAR(100) NOT NULL,
    "contact_email" VARCHAR(256),
    "operator_url" VARCHAR(512),
    "commercial_only" BOOLEAN NOT NULL DEFAULT false,
    "tier" VARCHAR(16) NOT NULL,
    "paid_at" TIMESTAMPTZ(3),
    "disabled_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "accounts"."api_keys" (
    "id" SERIAL NOT NULL,
    "agent_id" INTEGER NOT NULL,
    "key_hash" BYTEA NOT NULL,
    "key_prefix" VARCHAR(16) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "accounts"."processed_messages" (
    "consumer_group" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "processed_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "processed_messages_pkey" PRIMARY KEY ("consumer_group","message_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "accounts"."api_keys"("key_hash");

-- CreateIndex
CREATE INDEX "api_keys_agent_id_idx" ON "accounts"."api_keys"("agent_id");

-- AddForeignKey
ALTER TABLE "accounts"."api_keys" ADD CONSTRAINT "api_keys_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "accounts"."agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
