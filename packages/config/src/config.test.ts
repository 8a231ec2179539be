import { describe, it, expect } from '@jest/globals';
import { loadConfig, ConfigError, env, z } from './index';

const schema = z.object({ PORT: env.port(8080), FEATURE: env.bool(false), BASE_URL: env.url() });

describe('loadConfig', () => {
  it('parses and applies defaults', () => {
    expect(loadConfig(schema, { BASE_URL: 'http://localhost:8080' })).toEqual({ PORT: 8080, FEATURE: false, BASE_URL: 'http://localhost:8080' });
    expect(loadConfig(schema, { BASE_URL: 'http://x', PORT: '99', FEATURE: 'yes' })).toMatchObject({ PORT: 99, FEATURE: true });
  });

  it('fails fast listing every invalid variable', () => {
    expect(() => loadConfig(schema, { PORT: 'abc', FEATURE: 'maybe' }, 'gateway')).toThrow(ConfigError);
    try {
      loadConfig(schema, { PORT: 'abc', FEATURE: 'maybe' }, 'gateway');
    } catch (e) {
      const message = (e as Error).message;
      expect(message).toContain('gateway');
      expect(message).toContain('PORT');
      expect(message).toContain('FEATURE');
      expect(message).toContain('BASE_URL');
    }
  });
});
