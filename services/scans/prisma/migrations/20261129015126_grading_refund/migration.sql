-- AlterTable
ALTER TABLE "scans"."scans" ADD COLUMN     "credits_refunded" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "grading_credits" INTEGER NOT NULL DEFAULT 0;
