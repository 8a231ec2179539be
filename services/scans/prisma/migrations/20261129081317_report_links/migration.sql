-- CreateTable
CREATE TABLE "scans"."report_links" (
    "token" VARCHAR(64) NOT NULL,
    "scan_id" BIGINT NOT NULL,
    "agent_id" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "report_links_pkey" PRIMARY KEY ("token")
);

-- CreateIndex
CREATE INDEX "report_links_scan_id_created_at_idx" ON "scans"."report_links"("scan_id", "created_at");
