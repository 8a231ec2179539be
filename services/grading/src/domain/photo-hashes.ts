import { createHash } from 'node:crypto';

const sha256Hex = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');

/**
 * What a grade keeps of its photos: the SHA-256 of each, and the pair's fingerprint (SHA-256 of
 * `<front hash>:<back hash>`), which tells a replay (identical bytes) from a reused key (other photos).
 */
export function photoHashes(front: Uint8Array, back: Uint8Array): { frontSha256: string; backSha256: string; photoFingerprint: string } {
  const frontSha256 = sha256Hex(front);
  const backSha256 = sha256Hex(back);
  return { frontSha256, backSha256, photoFingerprint: sha256Hex(`${frontSha256}:${backSha256}`) };
}
