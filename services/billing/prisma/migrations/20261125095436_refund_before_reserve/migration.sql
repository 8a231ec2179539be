-- AlterTable
ALTER TABLE "billing"."grade_reservations" ALTER COLUMN "subscription_id" DROP NOT NULL;

-- Only a refund-before-reserve marker (source none) has no subscription, and it is born refunded and counts nothing.
ALTER TABLE "billing"."grade_reservations" ADD CONSTRAINT "grade_reservations_source_shape"
    CHECK (("source" IN ('trial', 'allowance') AND "subscription_id" IS NOT NULL)
        OR ("source" = 'none' AND "state" = 'refunded' AND "allowance_id" IS NULL));
