-- CreateTable
CREATE TABLE "billing"."customers" (
    "provider" VARCHAR(16) NOT NULL,
    "agent_id" INTEGER NOT NULL,
    "customer_id" VARCHAR(255) NOT NULL,
    "email" VARCHAR(320),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "customers_pkey" PRIMARY KEY ("provider","agent_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "customers_customer_id_key" ON "billing"."customers"("customer_id");
