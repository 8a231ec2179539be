-- CreateTable
CREATE TABLE "grading"."grade_leases" (
    "agent_id" INTEGER NOT NULL,
    "token" BIGSERIAL NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "grade_leases_pkey" PRIMARY KEY ("agent_id")
);

-- Leases move here from Redis (or process memory): the first token is above every fencing token already recorded,
-- so a grade that ran under an earlier lock cannot complete after one that runs under a lease.
SELECT setval(pg_get_serial_sequence('"grading"."grade_leases"', 'token'), GREATEST((SELECT COALESCE(MAX("token"), 0) FROM "grading"."agent_fences"), 1));
