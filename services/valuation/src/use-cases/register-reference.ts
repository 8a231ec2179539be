// Reference fingerprints: a confirmed photo or a render of a catalog card, kept for identification.
import { AppError } from '@cardlens/errors';
import type { PrismaClient } from '../db';
import { encodeVector, type FingerprintIndex } from '../identification/fingerprint-index';

export async function registerReference(
  deps: { prisma: PrismaClient; fingerprints: FingerprintIndex; fingerprintDims: number },
  input: { cardId: string; parallel: string; fingerprint: number[]; origin: string },
): Promise<{ referencesForCard: number }> {
  if (input.fingerprint.length !== deps.fingerprintDims || input.fingerprint.some((v) => !Number.isFinite(v))) {
    throw new AppError('invalid_body', `fingerprint must be ${deps.fingerprintDims} finite numbers`);
  }
  if (input.origin !== 'registered' && input.origin !== 'render') throw new AppError('invalid_body', 'origin must be `registered` or `render`');
  const card = await deps.prisma.catalogCard.findUnique({ where: { id: input.cardId }, select: { id: true } });
  if (!card) throw new AppError('invalid_body', 'no catalog card has this id');
  await deps.prisma.cardFingerprint.create({
    data: { cardId: input.cardId, parallel: input.parallel, vector: encodeVector(input.fingerprint), origin: input.origin },
  });
  deps.fingerprints.add(input.cardId, input.parallel, input.fingerprint);
  return { referencesForCard: await deps.prisma.cardFingerprint.count({ where: { cardId: input.cardId } }) };
}
