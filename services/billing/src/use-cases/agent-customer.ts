import type { PurchaseDeps } from './purchase-deps';

export interface AgentCustomer {
  customerId: string;
  /** The contact email the customer has (receipts go there), null when none was ever given. */
  email: string | null;
}

/**
 * The agent's one provider customer (named after the agent, metadata agent_id and environment), so all of an
 * agent's payments and subscriptions sit under it in the dashboard. Kept in billing.customers; otherwise found
 * by its metadata (a customer made before a lost write), taken over from the agent's earlier subscription
 * (`adopt`), or created under an idempotency key per environment and agent, so racing requests make one. An
 * email given here (the subscription checkout's contact email) is written to the customer.
 */
export async function agentCustomer(deps: PurchaseDeps, agentId: number, options: { email?: string | null; adopt?: string | null } = {}): Promise<AgentCustomer> {
  const provider = deps.provider.name;
  const email = options.email || null;
  const where = { provider_agentId: { provider, agentId } };
  let row = await deps.prisma.billingCustomer.findUnique({ where });
  if (!row) {
    const customerId =
      options.adopt ??
      (await deps.provider.findCustomer(agentId, deps.environment)) ??
      // Created without the email (added below), so every request for this agent sends the same parameters.
      (await deps.provider.createCustomer({
        idempotencyKey: `customer:${deps.environment}:${agentId}`,
        name: `CardLens agent ${agentId}`,
        email: null,
        metadata: { agent_id: String(agentId), environment: deps.environment },
      }));
    await deps.prisma.billingCustomer.createMany({ data: [{ provider, agentId, customerId, email: null }], skipDuplicates: true });
    // A concurrent twin may have stored its customer first: the stored one is the agent's.
    row = (await deps.prisma.billingCustomer.findUnique({ where }))!;
  }
  if (email && row.email !== email) {
    await deps.provider.updateCustomerEmail(row.customerId, email);
    row = await deps.prisma.billingCustomer.update({ where, data: { email } });
  }
  return { customerId: row.customerId, email: row.email };
}
