// The per-minute limits of CONTRACT §10 as configured, with their defaults: enforced by the rate limiter and
// quoted by the newcomer's guide.
import type { Config } from '../config.js';

type LimitsConfig = Partial<
  Pick<Config, 'RATE_LIMIT_PER_MINUTE' | 'RATE_LIMIT_ANONYMOUS_PER_MINUTE' | 'RATE_LIMIT_AUTH_PER_MINUTE'>
>;

export const rateLimitSettings = (config: LimitsConfig) => ({
  perMinute: config.RATE_LIMIT_PER_MINUTE ?? 600,
  anonymousPerMinute: config.RATE_LIMIT_ANONYMOUS_PER_MINUTE ?? 60,
  authPerMinute: config.RATE_LIMIT_AUTH_PER_MINUTE ?? 10,
});
