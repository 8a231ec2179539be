import { describe, expect, it } from '@jest/globals';
import { loadBillingConfig } from '../src/config';

// The payment provider is chosen by configuration, validated once at startup: the sandbox (no money moves)
// must never be what a production deployment runs, and Stripe needs its webhook secret and public URL.
describe('billing payment configuration', () => {
  it('without a Stripe key it is the sandbox, with a 24 h-less-2-minutes checkout and the token rail off', () => {
    const config = loadBillingConfig({});
    expect(config.STRIPE_SECRET_KEY).toBeUndefined();
    expect(config.SPT_ENABLED).toBe(false);
    expect(config.CHECKOUT_SESSION_TTL_MINUTES).toBe(24 * 60 - 2);
    expect(config.DEPLOYMENT_ENVIRONMENT).toBe('local');
  });

  it('refuses production without a Stripe key (the sandbox never runs there)', () => {
    expect(() => loadBillingConfig({ DEPLOYMENT_ENVIRONMENT: 'production' })).toThrow(/STRIPE_SECRET_KEY: required in production/);
  });

  it('refuses a Stripe key without the webhook secret or the public URL', () => {
    expect(() => loadBillingConfig({ STRIPE_SECRET_KEY: 'sk_live_x' })).toThrow(/STRIPE_WEBHOOK_SECRET[\s\S]*PUBLIC_BASE_URL/);
    expect(() => loadBillingConfig({ STRIPE_SECRET_KEY: 'pk_live_x', STRIPE_WEBHOOK_SECRET: 'whsec_12345678', PUBLIC_BASE_URL: 'https://api.example' })).toThrow(/sk_/);
    const ok = loadBillingConfig({ STRIPE_SECRET_KEY: 'sk_live_x', STRIPE_WEBHOOK_SECRET: 'whsec_12345678', PUBLIC_BASE_URL: 'https://api.example', DEPLOYMENT_ENVIRONMENT: 'production' });
    expect(ok.STRIPE_SECRET_KEY).toBe('sk_live_x');
  });

  it('refuses the token rail without Stripe, a test-only Stripe URL in production, and checkout lifetimes Stripe would refuse', () => {
    expect(() => loadBillingConfig({ SPT_ENABLED: 'true' })).toThrow(/SPT_ENABLED/);
    expect(() =>
      loadBillingConfig({ STRIPE_SECRET_KEY: 'sk_live_x', STRIPE_WEBHOOK_SECRET: 'whsec_12345678', PUBLIC_BASE_URL: 'https://api.example', DEPLOYMENT_ENVIRONMENT: 'production', STRIPE_API_BASE_URL: 'http://127.0.0.1:1' }),
    ).toThrow(/STRIPE_API_BASE_URL/);
    expect(() => loadBillingConfig({ CHECKOUT_SESSION_TTL_MINUTES: '29' })).toThrow(/CHECKOUT_SESSION_TTL_MINUTES/);
    expect(() => loadBillingConfig({ CHECKOUT_SESSION_TTL_MINUTES: '1441' })).toThrow(/CHECKOUT_SESSION_TTL_MINUTES/);
  });
});
