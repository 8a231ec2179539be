import { describe, expect, it } from '@jest/globals';
import { normaliseOwnerEmail, ownerKeyOf, trialRefusal } from '../src/domain/trial-owner';

describe('one trial per person: the owner key', () => {
  it('normalises trivial variants of one mailbox to one form', () => {
    expect(normaliseOwnerEmail('  Owner+x@Gmail.com ')).toBe('owner@gmail.com');
    expect(normaliseOwnerEmail('o.w.n.e.r@googlemail.com')).toBe('owner@gmail.com');
    expect(normaliseOwnerEmail('O.Wner+promo+2@GMAIL.COM')).toBe('owner@gmail.com');
    // Dots matter elsewhere; the +tag is dropped everywhere.
    expect(normaliseOwnerEmail('first.last+billing@Example.com')).toBe('first.last@example.com');
    expect(normaliseOwnerEmail('firstlast@example.com')).not.toBe(normaliseOwnerEmail('first.last@example.com'));
    // A leading + is a local part of its own, not a tag.
    expect(normaliseOwnerEmail('+owner@example.com')).toBe('+owner@example.com');
  });

  it('keeps only a SHA-256 digest of the normalised address', () => {
    const key = ownerKeyOf('Owner+x@Gmail.com');
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(key).toBe(ownerKeyOf('owner@gmail.com'));
    expect(key).not.toContain('owner');
    expect(ownerKeyOf('other@gmail.com')).not.toBe(key);
  });

  it('explains a refusal as a trial_already_used problem, and nothing when not refused', () => {
    expect(trialRefusal('same_owner')).toMatchObject({ code: 'trial_already_used', detail: expect.stringMatching(/email/) });
    expect(trialRefusal('same_card')).toMatchObject({ code: 'trial_already_used', detail: expect.stringMatching(/card/) });
    expect(trialRefusal(null)).toBeNull();
  });
});
