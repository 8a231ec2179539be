// The valuation service's generated Prisma client (git-ignored; `npm run generate` writes it).
export { PrismaClient, Prisma } from './generated/prisma/client';
export type { CatalogCard, Sale as SaleRow, CardFingerprint } from './generated/prisma/client';
