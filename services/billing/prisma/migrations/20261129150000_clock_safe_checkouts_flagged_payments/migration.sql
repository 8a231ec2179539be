-- Checkout rows created_at comes from the database's clock whatever the client sends (Prisma fills now()
-- defaults on the client), so a crashed creation is told on the one clock every billing replica shares.
-- The body is an escape string with octal 073 for each semicolon: the Postgres driver adapter splits migration
-- scripts at every semicolon, dollar quotes included (so this file has none but the statement ends).
CREATE FUNCTION "billing"."created_at_from_database"() RETURNS trigger LANGUAGE plpgsql
  AS E'BEGIN NEW.created_at := now()\073 RETURN NEW\073 END';

CREATE TRIGGER "checkout_sessions_created_at" BEFORE INSERT ON "billing"."checkout_sessions"
  FOR EACH ROW EXECUTE FUNCTION "billing"."created_at_from_database"();

CREATE TRIGGER "subscription_checkouts_created_at" BEFORE INSERT ON "billing"."subscription_checkouts"
  FOR EACH ROW EXECUTE FUNCTION "billing"."created_at_from_database"();

-- Confirmed payments billing did not set up are stored unapplied with the reason (issue 49, point 8).
-- AlterTable
ALTER TABLE "billing"."payment_events" ADD COLUMN "flagged_reason" VARCHAR(200);
