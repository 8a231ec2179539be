// The billing service's generated Prisma client (git-ignored; `npm run generate` writes it).
export { PrismaClient, Prisma } from './generated/prisma/client';
export type { CreditAccount, LedgerEntry, Subscription, TrialUse } from './generated/prisma/client';
