// The grading service's generated Prisma client (git-ignored; `npm run generate` writes it).
export { PrismaClient, Prisma } from './generated/prisma/client';
export type { Grade } from './generated/prisma/client';
