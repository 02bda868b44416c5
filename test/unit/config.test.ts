// Configuration: defaults, parsing, and a bad value naming its variable.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  it('fills the defaults of CONTRACT §12', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PUBLIC_URL: 'https://localhost:8443',
      PORT: 8443,
      HTTP_PORT: 8080,
      HOST: '0.0.0.0',
      TRUST_PROXY: false,
      ACCESS_TOKEN_TTL_SECONDS: 900,
      REFRESH_TOKEN_TTL_SECONDS: 1_209_600,
      BOOKING_LEAD_MINUTES: 15,
      WEBHOOK_RETRY_SCHEDULE: [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400],
      WEBHOOK_TIMEOUT_MS: 15_000,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: false,
      RATE_LIMIT_PER_MINUTE: 600,
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: 60,
      RATE_LIMIT_AUTH_PER_MINUTE: 10,
      LOG_LEVEL: 'info',
    });
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.DATA_DIR.endsWith('/.data')).toBe(true);
  });

  it('parses given values; PUBLIC_URL follows PORT and loses a trailing slash', () => {
    expect(loadConfig({ PORT: '9443' }).PUBLIC_URL).toBe('https://localhost:9443');
    const c = loadConfig({
      PUBLIC_URL: 'https://cars.example.com/',
      TRUST_PROXY: 'true',
      WEBHOOK_RETRY_SCHEDULE: '1, 2,3',
    });
    expect(c.PUBLIC_URL).toBe('https://cars.example.com');
    expect(c.TRUST_PROXY).toBe(true);
    expect(c.WEBHOOK_RETRY_SCHEDULE).toEqual([1, 2, 3]);
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['REDIS_URL', 'http://x'],
    ['TRUST_PROXY', 'maybe'],
    ['ACCESS_TOKEN_TTL_SECONDS', '-1'],
    ['WEBHOOK_RETRY_SCHEDULE', '5,soon'],
    ['LOG_LEVEL', 'loud'],
    ['OPS_EMAIL', 'not-an-email'],
    ['PUBLIC_URL', 'localhost'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    let err: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).variables).toEqual([name]);
    expect((err as ConfigError).message).toContain(name);
  });

  it('wants TLS_CERT and TLS_KEY together', () => {
    expect(() => loadConfig({ TLS_CERT: '/x.pem' })).toThrow(/TLS_CERT and TLS_KEY/);
  });
});
