-- AlterTable
ALTER TABLE "scans"."scans" ADD COLUMN     "refund_due" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "requeues" INTEGER NOT NULL DEFAULT 0;
