-- AlterTable
ALTER TABLE "scans"."scans" ADD COLUMN     "blobs_removed_at" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "scans_completed_at_idx" ON "scans"."scans"("completed_at");
