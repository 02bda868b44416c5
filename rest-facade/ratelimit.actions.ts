// CONTRACT §28 "Rate limits count actions, not requests": what one GraphQL operation's mutation root fields count
// against the limits of §10, however they arrive (aliased in one /graphql document, or over graphql-ws).
import { CEILING_KEY, type DeploymentLimits, limitsFor } from './ratelimit.limits.js';
import type { Take, Taken, TakeUnits } from './ratelimit.store.js';
import type { RequestCarShare } from './respond.js';

/** The sign-up route's operation: its fields count in the class of the sign-up route (sign-in, sign-up, token). */
export const SIGN_UP_OPERATION = 'createUserAccount';

/**
 * Who an operation is counted for: the client's address and the caller's token subject (null when anonymous), in
 * the car share addressed (its windows, its limits).
 */
export interface ActionSubject {
  ip: string;
  subject: string | null;
  carShare?: RequestCarShare | undefined;
}

/** What counting an operation decided. */
export interface ActionVerdict {
  passed: boolean;
  /** Refused: seconds until a window that lacked room ends (Retry-After). */
  retryAfter: number;
  /** Refused by the car share's ceiling alone. */
  scope?: 'CarShare';
  /** The caller's own class after this count, when units were taken from it (for the RateLimit-* headers). */
  own?: { limit: number; remaining: number; reset: number };
}

/**
 * Counts an operation's mutation root fields, all or nothing (a refused operation takes no unit and runs nothing):
 * each field one unit, sign-up fields in the auth class by IP, every other field in the caller's own class
 * (its token subject; its IP when anonymous).
 *
 * `counted` says whether the transport has already counted the operation once in the caller's own class, as the
 * middleware counts every HTTP request. That unit stands for the operation's first field of the caller's class, so
 * a document of N such fields counts N in all (not N + 1), and a query counts its request alone. A graphql-ws
 * operation, counted by nothing before, counts one at least: a query or a subscription one, N fields N; and, being
 * a request of its own, one against the car share's ceiling (an HTTP request's unit there is the middleware's).
 */
export type CountActions = (
  who: ActionSubject,
  fields: readonly string[],
  counted: boolean,
) => Promise<ActionVerdict>;

interface ActionLimits extends DeploymentLimits {
  onStoreError?(err: unknown): void;
}

export function countActions(limits: ActionLimits, windowMs: number, take: TakeUnits): CountActions {
  return async (who, fields, counted) => {
    const max = limitsFor(limits, who.carShare);
    const auth = fields.filter((f) => f === SIGN_UP_OPERATION).length;
    const own = fields.length - auth;
    const ownTake: Take = who.subject
      ? { key: `caller:sub:${who.subject}`, max: max.caller, units: 0 }
      : { key: `anonymous:ip:${who.ip}`, max: max.anonymous, units: 0 };
    ownTake.units = counted ? Math.max(0, own - 1) : Math.max(1, own);
    const ceiling: Take = {
      key: CEILING_KEY,
      max: max.carShare,
      units: counted || max.carShare <= 0 ? 0 : 1,
    };
    const takes = [ownTake, { key: `auth:ip:${who.ip}`, max: max.auth, units: auth }, ceiling].filter(
      (t) => t.units > 0,
    );
    if (takes.length === 0) return { passed: true, retryAfter: 0 };
    let taken: Taken;
    try {
      taken = await take(who.carShare?.id, takes);
    } catch (err) {
      // The shared counters are out of reach (Redis down): as for requests, serving uncounted beats refusing all.
      limits.onStoreError?.(err);
      return { passed: true, retryAfter: 0 };
    }
    const now = Date.now();
    const seconds = (endsAt: number) =>
      Math.min(Math.ceil(windowMs / 1000), Math.max(1, Math.ceil((endsAt - now) / 1000)));
    if (!taken.passed) {
      const lacking = takes.flatMap((t, i) => (taken.windows[i]!.remaining < t.units ? [t] : []));
      const windows = taken.windows.filter((w, i) => w.remaining < takes[i]!.units);
      return {
        passed: false,
        retryAfter: Math.max(1, ...windows.map((w) => seconds(w.endsAt))),
        ...(lacking.every((t) => t === ceiling) ? { scope: 'CarShare' as const } : {}),
      };
    }
    const mine = takes[0] === ownTake ? taken.windows[0] : undefined;
    return {
      passed: true,
      retryAfter: 0,
      ...(mine
        ? { own: { limit: ownTake.max, remaining: mine.remaining, reset: seconds(mine.endsAt) } }
        : {}),
    };
  };
}
