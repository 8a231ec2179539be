-- One trial per person: trials keyed also by the owner's normalised email (hashed) and the card's fingerprint.
-- AlterTable
ALTER TABLE "billing"."subscription_checkouts" ADD COLUMN     "trial_refusal" VARCHAR(32);

-- AlterTable
ALTER TABLE "billing"."trial_uses" ADD COLUMN     "card_fingerprint" VARCHAR(64),
ADD COLUMN     "owner_key" CHAR(64),
ADD COLUMN     "refusal" VARCHAR(32),
ADD COLUMN     "refused_at" TIMESTAMPTZ(3);

-- CreateIndex
CREATE UNIQUE INDEX "trial_uses_owner_key_key" ON "billing"."trial_uses"("owner_key");

-- CreateIndex
CREATE UNIQUE INDEX "trial_uses_card_fingerprint_key" ON "billing"."trial_uses"("card_fingerprint");
