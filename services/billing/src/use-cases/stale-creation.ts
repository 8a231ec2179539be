import type { PrismaClient } from '../db';

/** A `creating` checkout row older than this was left by a crash mid-creation and may be taken over. */
export const STALE_CREATING_SECONDS = 60;

/**
 * Whether a `creating` checkout row was written more than STALE_CREATING_SECONDS ago, judged on the database's
 * clock alone (its `created_at` default and its `now()`). Billing's clock is the wrong one here: the sandbox
 * moves it by days and replicas' clocks differ, and either made live twins look crashed (issue 49).
 */
export async function createdLongAgo(prisma: PrismaClient, table: 'checkout_sessions' | 'subscription_checkouts', id: string): Promise<boolean> {
  const rows = await prisma.$queryRawUnsafe<{ stale: boolean }[]>(
    `SELECT created_at < now() - make_interval(secs => $2) AS stale FROM billing.${table} WHERE id = $1::uuid`,
    id,
    STALE_CREATING_SECONDS,
  );
  return rows[0]?.stale ?? false;
}
