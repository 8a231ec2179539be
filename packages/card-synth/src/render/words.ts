// Deterministic filler text (attack names, flavour text, bios) built from syllables.
import type { Rng } from '../prng';

const SYLLABLES = [
  'ra', 'ko', 'mi', 'ta', 'shi', 'ven', 'dor', 'el', 'an', 'tor', 'lu', 'sa', 'ber', 'qui', 'po', 'zen',
  'ka', 'rin', 'mo', 'ga', 'fel', 'dra', 'nu', 'pe', 'lo', 'ti', 'ver', 'sol', 'mar', 'is', 'on', 'ex',
];

const ATTACK_WORDS = [
  'Tackle', 'Psybeam', 'Flame', 'Surf', 'Thunder', 'Leaf', 'Slash', 'Blast', 'Shock', 'Wave', 'Claw',
  'Bite', 'Storm', 'Punch', 'Kick', 'Beam', 'Dash', 'Fang', 'Whip', 'Burst', 'Spark', 'Crush', 'Drain',
];

export function word(rng: Rng, minSyl = 1, maxSyl = 3): string {
  const n = rng.int(minSyl, maxSyl);
  let w = '';
  for (let i = 0; i < n; i++) w += rng.pick(SYLLABLES);
  return w;
}

export function sentence(rng: Rng, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(word(rng));
  const s = out.join(' ');
  return s.charAt(0).toUpperCase() + s.slice(1) + '.';
}

export function attackName(rng: Rng): string {
  return rng.chance(0.5) ? rng.pick(ATTACK_WORDS) : `${rng.pick(ATTACK_WORDS)} ${rng.pick(ATTACK_WORDS)}`;
}

export function capitalize(w: string): string {
  return w.charAt(0).toUpperCase() + w.slice(1);
}

/** Approximate advance width of DejaVu Sans text, in units of the font size. */
export function textWidthEm(text: string, bold = false, mono = false): number {
  if (mono) return text.length * 0.602;
  let w = 0;
  for (const ch of text) {
    if (ch === ' ') w += 0.32;
    else if (/[A-Z]/.test(ch)) w += ch === 'I' ? 0.3 : ch === 'M' || ch === 'W' ? 0.86 : 0.7;
    else if (/[0-9]/.test(ch)) w += 0.64;
    else if (/[a-z]/.test(ch)) w += ch === 'i' || ch === 'l' || ch === 'j' ? 0.28 : ch === 'm' || ch === 'w' ? 0.9 : 0.6;
    else w += 0.4;
  }
  return bold ? w * 1.1 : w;
}

/** Largest font size (up to `size`) at which the text fits in `maxWidth`. */
export function fitFont(text: string, size: number, maxWidth: number, bold = false, mono = false): number {
  const w = textWidthEm(text, bold, mono) * size;
  return w <= maxWidth ? size : Math.max(0.6, (size * maxWidth) / w);
}

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}
