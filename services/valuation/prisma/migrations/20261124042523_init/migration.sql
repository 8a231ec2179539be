-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "valuation";

-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "pg_trgm" WITH SCHEMA "valuation";

-- CreateTable
CREATE TABLE "valuation"."catalog_cards" (
    "id" TEXT NOT NULL,
    "game" VARCHAR(16) NOT NULL,
    "name" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "set_name" TEXT NOT NULL,
    "release" TEXT,
    "year" INTEGER,
    "number" TEXT NOT NULL,
    "set_official_count" INTEGER,
    "rarity" TEXT,
    "attributes" TEXT[],
    "parallels" JSONB NOT NULL DEFAULT '[]',
    "variants" JSONB NOT NULL DEFAULT '[]',
    "name_key" TEXT NOT NULL,
    "number_key" VARCHAR(32) NOT NULL,
    "brand_key" TEXT NOT NULL,
    "catalog" VARCHAR(64) NOT NULL,
    "record_hash" VARCHAR(64) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "catalog_cards_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "valuation"."card_fingerprints" (
    "id" BIGSERIAL NOT NULL,
    "card_id" TEXT NOT NULL,
    "parallel" TEXT NOT NULL DEFAULT '',
    "vector" BYTEA NOT NULL,
    "origin" VARCHAR(16) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "card_fingerprints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "valuation"."sales" (
    "id" BIGSERIAL NOT NULL,
    "source" VARCHAR(64) NOT NULL,
    "source_id" VARCHAR(128) NOT NULL,
    "card_id" TEXT NOT NULL,
    "parallel" TEXT NOT NULL DEFAULT '',
    "grader" VARCHAR(16),
    "grade" DECIMAL(3,1),
    "price_cents" BIGINT NOT NULL,
    "sold_at" TIMESTAMPTZ(3) NOT NULL,
    "listing_type" VARCHAR(16) NOT NULL,
    "title" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sales_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "valuation"."grade_premium_fits" (
    "id" BIGSERIAL NOT NULL,
    "model" JSONB NOT NULL,
    "sales_used" INTEGER NOT NULL,
    "fitted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "grade_premium_fits_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "catalog_cards_number_key_year_idx" ON "valuation"."catalog_cards"("number_key", "year");

-- CreateIndex
CREATE INDEX "catalog_cards_name_key_year_idx" ON "valuation"."catalog_cards"("name_key", "year");

-- CreateIndex
CREATE INDEX "catalog_cards_name_trgm" ON "valuation"."catalog_cards" USING GIN ("name_key" valuation.gin_trgm_ops);

-- CreateIndex
CREATE INDEX "catalog_cards_subject_idx" ON "valuation"."catalog_cards"("subject");

-- CreateIndex
CREATE INDEX "card_fingerprints_card_id_idx" ON "valuation"."card_fingerprints"("card_id");

-- CreateIndex
CREATE INDEX "sales_card_id_parallel_sold_at_idx" ON "valuation"."sales"("card_id", "parallel", "sold_at");

-- CreateIndex
CREATE UNIQUE INDEX "sales_source_source_id_key" ON "valuation"."sales"("source", "source_id");
