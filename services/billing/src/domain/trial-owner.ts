import { createHash } from 'node:crypto';

/**
 * One trial per person, not only per API account: the same owner signing up again gets no second trial. The
 * person is recognised by the contact email (normalised, so trivial variants of one mailbox match) and, once
 * a trial starts, by the card's fingerprint at the provider.
 */

/** Mail providers that ignore dots in the local part (and their alias domain). */
const DOTLESS_DOMAINS: Record<string, string> = { 'gmail.com': 'gmail.com', 'googlemail.com': 'gmail.com' };

/**
 * One mailbox, one form: trimmed, lower-case, a `+tag` dropped from the local part; for Gmail the dots are
 * dropped and googlemail.com becomes gmail.com.
 */
export function normaliseOwnerEmail(email: string): string {
  const trimmed = email.trim().toLowerCase();
  const at = trimmed.lastIndexOf('@');
  if (at <= 0) return trimmed;
  let local = trimmed.slice(0, at);
  let domain = trimmed.slice(at + 1);
  const plus = local.indexOf('+');
  if (plus > 0) local = local.slice(0, plus);
  const dotless = DOTLESS_DOMAINS[domain];
  if (dotless) {
    local = local.replaceAll('.', '');
    domain = dotless;
  }
  return `${local}@${domain}`;
}

/** The stored key: SHA-256 (hex) of the normalised email. Equality is all the rule needs, not the address. */
export function ownerKeyOf(email: string): string {
  return createHash('sha256').update(normaliseOwnerEmail(email)).digest('hex');
}

/** Why a trial was refused: the owner's email already had one, or the card did (on another account). */
export type TrialRefusalReason = 'same_owner' | 'same_card';

/** The refusal as the API shows it (the caller renders it as a `trial_already_used` problem). */
export interface TrialRefusal {
  code: 'trial_already_used';
  detail: string;
}

export function trialRefusal(reason: string | null | undefined): TrialRefusal | null {
  if (reason === 'same_owner') {
    return { code: 'trial_already_used', detail: "The account owner's email already had a grading trial on another account: one trial per person. This checkout charges the plan at once." };
  }
  if (reason === 'same_card') {
    return { code: 'trial_already_used', detail: 'The card given at checkout already had a grading trial on another account: one trial per person. The trial was ended and the plan charged at once.' };
  }
  return null;
}
