-- Real market data: daily marketplace prices per card printing, and graded price tables.
-- AlterTable
ALTER TABLE "valuation"."catalog_cards" ADD COLUMN "tcgplayer_products" INTEGER[] DEFAULT ARRAY[]::INTEGER[];

-- CreateTable
CREATE TABLE "valuation"."market_price_series" (
    "source" VARCHAR(32) NOT NULL,
    "card_id" TEXT NOT NULL,
    "product_id" INTEGER NOT NULL,
    "printing" VARCHAR(48) NOT NULL,
    "first_day" DATE NOT NULL,
    "market_cents" INTEGER[],
    "latest_day" DATE NOT NULL,
    "low_cents" INTEGER,
    "mid_cents" INTEGER,
    "high_cents" INTEGER,
    "direct_low_cents" INTEGER,

    CONSTRAINT "market_price_series_pkey" PRIMARY KEY ("source","card_id","product_id","printing")
);

-- CreateTable
CREATE TABLE "valuation"."graded_prices" (
    "source" VARCHAR(32) NOT NULL,
    "card_id" TEXT NOT NULL,
    "grader" VARCHAR(16) NOT NULL,
    "grade" DECIMAL(3,1) NOT NULL,
    "price_cents" INTEGER NOT NULL,
    "as_of" DATE NOT NULL,
    "source_url" TEXT NOT NULL DEFAULT '',

    CONSTRAINT "graded_prices_pkey" PRIMARY KEY ("source","card_id","grader","grade","as_of")
);

-- CreateIndex
CREATE INDEX "graded_prices_card_id_idx" ON "valuation"."graded_prices"("card_id");
