// The per-minute limits of CONTRACT §10 as configured, with their defaults: enforced by the rate limiter and
// quoted by the newcomer's guide.
import type { Config } from '../config.js';

type LimitsConfig = Partial<
  Pick<
    Config,
    | 'RATE_LIMIT_PER_MINUTE'
    | 'RATE_LIMIT_ANONYMOUS_PER_MINUTE'
    | 'RATE_LIMIT_AUTH_PER_MINUTE'
    | 'RATE_LIMIT_CAR_SHARE_PER_MINUTE'
  >
>;

/** The deployment's settings; a car share's `Limits` override each for it (CONTRACT §20). */
export const rateLimitSettings = (config: LimitsConfig) => ({
  perMinute: config.RATE_LIMIT_PER_MINUTE ?? 600,
  anonymousPerMinute: config.RATE_LIMIT_ANONYMOUS_PER_MINUTE ?? 60,
  authPerMinute: config.RATE_LIMIT_AUTH_PER_MINUTE ?? 10,
  /** Requests per minute of one car share, all callers together; 0: none. */
  carSharePerMinute: config.RATE_LIMIT_CAR_SHARE_PER_MINUTE ?? 0,
});
