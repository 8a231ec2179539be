import type { Agent } from '../db';

export interface AgentView {
  agentId: number;
  name: string;
  tier: 'anonymous' | 'registered' | 'paid';
  keyPrefix: string | null;
  contactEmail: string | null;
  commercialOnly: boolean;
  createdAt: Date;
}

export function toAgentView(agent: Agent, keyPrefix: string | null): AgentView {
  return {
    agentId: agent.id,
    name: agent.name,
    // "paid" is earned by buying credits and never goes back.
    tier: agent.paidAt ? 'paid' : (agent.tier as 'anonymous' | 'registered'),
    keyPrefix,
    contactEmail: agent.contactEmail,
    commercialOnly: agent.commercialOnly,
    createdAt: agent.createdAt,
  };
}
