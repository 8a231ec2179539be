-- CreateTable
CREATE TABLE "grading"."report_links" (
    "token" VARCHAR(64) NOT NULL,
    "grade_id" BIGINT NOT NULL,
    "agent_id" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "report_links_pkey" PRIMARY KEY ("token")
);

-- CreateIndex
CREATE INDEX "report_links_grade_id_created_at_idx" ON "grading"."report_links"("grade_id", "created_at");
