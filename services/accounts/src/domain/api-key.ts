import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

/** Every key starts with this fixed 4-character literal (the spec: four characters ending in "_"). */
export const API_KEY_PREFIX = 'clk_';
const BODY_LENGTH = 40;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const KEY_PATTERN = /^clk_[A-Za-z0-9]{40}$/;
/** Shown to the owner to recognise a key: the literal prefix plus 8 characters (~47 bits stay secret-free). */
const DISPLAY_PREFIX_LENGTH = 12;

export interface NewApiKey {
  plaintext: string;
  hash: Uint8Array<ArrayBuffer>;
  displayPrefix: string;
}

/** 40 characters from a 62-letter alphabet: about 238 bits of entropy, drawn without modulo bias. */
export function generateApiKey(): NewApiKey {
  let body = '';
  for (let i = 0; i < BODY_LENGTH; i++) body += ALPHABET[randomInt(ALPHABET.length)];
  const plaintext = API_KEY_PREFIX + body;
  return { plaintext, hash: hashApiKey(plaintext), displayPrefix: plaintext.slice(0, DISPLAY_PREFIX_LENGTH) };
}

export function isWellFormedApiKey(candidate: string): boolean {
  return KEY_PATTERN.test(candidate);
}

/** A fast hash is right here: keys carry ~238 random bits, so there is nothing to brute-force. */
export function hashApiKey(plaintext: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(createHash('sha256').update(plaintext, 'utf8').digest());
}

export function hashesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
