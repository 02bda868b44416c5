// The limits a car share's requests are counted against (CONTRACT §20): the deployment's settings (§10), each
// overridden by the car share's `Limits`, and its ceiling on all its requests per minute.
import type { RequestCarShare } from './respond.js';

/** The deployment's settings, as the limiter is given them. */
export interface DeploymentLimits {
  perMinute: number;
  anonymousPerMinute: number;
  authPerMinute: number;
  /** Requests per minute of one car share, all its callers together; 0 or absent: no ceiling. */
  carSharePerMinute?: number | undefined;
}

/** The deployment's limits with a car share's overrides (CONTRACT §20); a ceiling of 0 is none. */
export interface EffectiveLimits {
  auth: number;
  caller: number;
  anonymous: number;
  carShare: number;
}

export function limitsFor(opts: DeploymentLimits, carShare: RequestCarShare | undefined): EffectiveLimits {
  const l = carShare?.limits;
  return {
    auth: l?.AuthPerMinute ?? opts.authPerMinute,
    caller: l?.CallerPerMinute ?? opts.perMinute,
    anonymous: l?.AnonymousPerMinute ?? opts.anonymousPerMinute,
    carShare: l?.CarSharePerMinute ?? opts.carSharePerMinute ?? 0,
  };
}

/** The key of a car share's whole traffic, beside its callers' own (`caller:…`, `anonymous:…`, `auth:…`). */
export const CEILING_KEY = 'carshare';
