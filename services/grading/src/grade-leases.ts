import type { PrismaClient } from './db';

/**
 * The one-grade-in-flight-per-account rule, kept in the database every grading replica already shares (the
 * grading.grade_leases table): grading depends on no other store, so a Redis outage cannot stop it. Taking a lease is
 * one conditional upsert (a free or expired row is taken, a live one is not), judged on the database's clock
 * alone, so replicas whose clocks differ agree. Each lease carries a fencing token from the row's sequence, which
 * only grows: the grade use case records the newest token per account (agent_fences) and refuses to start or
 * complete a grade under an older one, so a holder whose lease expired (it overran its budget) cannot finish after
 * the newer holder.
 */
export class GradeLeases {
  constructor(private readonly prisma: PrismaClient) {}

  /** A lease for the account, or null when another grade of the account holds a live one. */
  async acquire(agentId: number, ttlMs: number): Promise<Lease | null> {
    const taken = await this.prisma.$queryRaw<{ token: bigint }[]>`
      INSERT INTO "grading"."grade_leases" ("agent_id", "expires_at")
      VALUES (${agentId}, now() + make_interval(secs => ${ttlMs / 1000}))
      ON CONFLICT ("agent_id") DO UPDATE SET "token" = EXCLUDED."token", "expires_at" = EXCLUDED."expires_at"
      WHERE "grading"."grade_leases"."expires_at" <= now()
      RETURNING "token"`;
    const token = taken[0]?.token;
    if (token === undefined) return null;
    return {
      token,
      // Only this lease's own row: a newer holder's lease is left alone. A failed release leaves the lease to expire.
      release: async () => {
        await this.prisma.$executeRaw`DELETE FROM "grading"."grade_leases" WHERE "agent_id" = ${agentId} AND "token" = ${token}`.catch(() => undefined);
      },
    };
  }
}

export interface Lease {
  token: bigint;
  /** Releases the lease if it is still this one. */
  release(): Promise<void>;
}
