import { describe, expect, it } from '@jest/globals';
import { AppError } from '@cardlens/errors';
import { parseRegistration } from './registration-rules';

const invalid = (input: unknown): string => {
  try {
    parseRegistration(input);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('invalid_body');
    return (error as AppError).detail;
  }
  throw new Error('expected invalid_body');
};

describe('registration rules', () => {
  it('accepts the limits exactly', () => {
    const local = 'a'.repeat(64);
    const email = `${local}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(60)}.io`;
    expect(email).toHaveLength(256);
    const parsed = parseRegistration({ name: 'n'.repeat(100), contactEmail: email, operatorUrl: `https://example.com/${'p'.repeat(492)}` });
    expect(parsed.name).toHaveLength(100);
    expect(parsed.commercialOnly).toBe(false);
  });

  it('trims the name and refuses empty or control-character names', () => {
    expect(parseRegistration({ name: '  bot  ' }).name).toBe('bot');
    expect(invalid({ name: '   ' })).toMatch(/name/);
    expect(invalid({ name: 'a\u0000b' })).toMatch(/control/);
    expect(invalid({})).toMatch(/name/);
    expect(invalid({ name: 42 })).toMatch(/name/);
  });

  it('enforces each length limit', () => {
    expect(invalid({ name: 'n'.repeat(101) })).toMatch(/100/);
    expect(invalid({ name: 'x', contactEmail: `${'a'.repeat(250)}@ex.com` })).toMatch(/contactEmail/);
    expect(invalid({ name: 'x', operatorUrl: `https://example.com/${'p'.repeat(493)}` })).toMatch(/512/);
  });

  it('requires a real email and an absolute http(s) operator URL', () => {
    for (const email of ['not-an-email', 'a@', '@b.com', 'a b@c.com', '']) expect(invalid({ name: 'x', contactEmail: email })).toMatch(/contactEmail/);
    for (const url of ['ftp://example.com', '/relative', 'example.com', 'javascript:alert(1)', 'http://']) {
      expect(invalid({ name: 'x', operatorUrl: url })).toMatch(/operatorUrl/);
    }
    expect(parseRegistration({ name: 'x', operatorUrl: 'http://example.com' }).operatorUrl).toBe('http://example.com');
  });

  it('treats null like absent and requires a boolean commercialOnly', () => {
    expect(parseRegistration({ name: 'x', contactEmail: null, operatorUrl: null })).toMatchObject({ contactEmail: null, operatorUrl: null });
    expect(invalid({ name: 'x', commercialOnly: 'yes' })).toMatch(/commercialOnly/);
  });
});
