// Share links of scan reports, on PGlite and on Postgres: one live link per scan however many issues race, a
// revoked or expired link opens nothing, only the owner's completed scan gets one, and lifetimes are bounded.
import { fileURLToPath } from 'node:url';
import { expect, it } from '@jest/globals';
import { openMigratedPrisma } from '@cardlens/db/testing';
import { isAppError } from '@cardlens/errors';
import { describeOnPgliteAndPostgres } from '@cardlens/testing';
import { PrismaClient } from '../src/db';
import { REPORT_TOKEN_PATTERN } from '@cardlens/contracts';
import { issueReportLink, liveReportLink, revokeReportLink } from '../src/use-cases/report-links';

const serviceDir = fileURLToPath(new URL('..', import.meta.url));


const codeOf = async (promise: Promise<unknown>): Promise<string> =>
  promise.then(
    () => 'ok',
    (error: unknown) => (isAppError(error) ? error.code : String(error)),
  );

function reportLinkTests(prisma: () => PrismaClient) {
  let nextAgent = 100;
  async function scan(status = 'completed'): Promise<{ agentId: number; scanId: number }> {
    const agentId = nextAgent++;
    const created = await prisma().scan.create({ data: { agentId, status, modules: ['full'], creditsCharged: 2 } });
    return { agentId, scanId: Number(created.id) };
  }

  it('issues a link of the asked lifetime; a new one retires the old', async () => {
    const { agentId, scanId } = await scan();
    const first = await issueReportLink({ prisma: prisma() }, { agentId, scanId, expiresInDays: 7 });
    expect(first.token).toMatch(REPORT_TOKEN_PATTERN);
    expect(first.token.startsWith('s')).toBe(true);
    const days = (first.expiresAt!.seconds - first.createdAt!.seconds) / 86_400;
    expect(days).toBeCloseTo(7, 3);
    expect((await liveReportLink(prisma(), BigInt(scanId)))?.token).toBe(first.token);
    const second = await issueReportLink({ prisma: prisma(), defaultTtlDays: 30 }, { agentId, scanId });
    expect(second.token).not.toBe(first.token);
    expect((second.expiresAt!.seconds - second.createdAt!.seconds) / 86_400).toBeCloseTo(30, 3);
    expect((await liveReportLink(prisma(), BigInt(scanId)))?.token).toBe(second.token);
    const rows = await prisma().reportLink.findMany({ where: { scanId: BigInt(scanId) } });
    expect(rows.filter((r) => r.revokedAt === null).map((r) => r.token)).toEqual([second.token]);
  });

  it('leaves exactly one live link when issues and revocations race', async () => {
    const { agentId, scanId } = await scan();
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, i) => (i % 4 === 3 ? revokeReportLink({ prisma: prisma() }, { agentId, scanId }) : issueReportLink({ prisma: prisma() }, { agentId, scanId }))),
    );
    expect(outcomes).toHaveLength(12);
    expect((await prisma().reportLink.findMany({ where: { scanId: BigInt(scanId), revokedAt: null } })).length).toBeLessThanOrEqual(1);
    // One more issue after the race: whatever the interleaving, one live link remains.
    const last = await issueReportLink({ prisma: prisma() }, { agentId, scanId });
    const live = await prisma().reportLink.findMany({ where: { scanId: BigInt(scanId), revokedAt: null } });
    expect(live.map((r) => r.token)).toEqual([last.token]);
  });

  it('a revoked or expired link is no live link; revoking twice is harmless', async () => {
    const { agentId, scanId } = await scan();
    await issueReportLink({ prisma: prisma() }, { agentId, scanId });
    await expect(revokeReportLink({ prisma: prisma() }, { agentId, scanId })).resolves.toBe(true);
    await expect(revokeReportLink({ prisma: prisma() }, { agentId, scanId })).resolves.toBe(false);
    expect(await liveReportLink(prisma(), BigInt(scanId))).toBeUndefined();
    const again = await issueReportLink({ prisma: prisma() }, { agentId, scanId });
    await prisma().reportLink.update({ where: { token: again.token }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await liveReportLink(prisma(), BigInt(scanId))).toBeUndefined();
    await expect(revokeReportLink({ prisma: prisma() }, { agentId, scanId })).resolves.toBe(false);
  });

  it("only the owner's completed scan gets a link, for 1-365 days", async () => {
    const { agentId, scanId } = await scan();
    expect(await codeOf(issueReportLink({ prisma: prisma() }, { agentId: agentId + 1000, scanId }))).toBe('scan_not_found');
    expect(await codeOf(revokeReportLink({ prisma: prisma() }, { agentId: agentId + 1000, scanId }))).toBe('scan_not_found');
    for (const status of ['queued', 'processing', 'failed', 'pending', 'abandoned']) {
      const other = await scan(status);
      expect(await codeOf(issueReportLink({ prisma: prisma() }, other))).toBe('scan_not_found');
    }
    expect(await codeOf(issueReportLink({ prisma: prisma() }, { agentId, scanId: 0 }))).toBe('scan_not_found');
    for (const expiresInDays of [-1, 366, 1.5]) expect(await codeOf(issueReportLink({ prisma: prisma() }, { agentId, scanId, expiresInDays }))).toBe('invalid_body');
    expect(await codeOf(issueReportLink({ prisma: prisma() }, { agentId, scanId, expiresInDays: 365 }))).toBe('ok');
  });
}

describeOnPgliteAndPostgres('report links', { label: 'scans_report_links', open: (config) => openMigratedPrisma(PrismaClient, serviceDir, config) }, reportLinkTests);
