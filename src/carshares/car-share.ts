// A car share (CONTRACT §19): one car-sharing business on the deployment, at its own address. Every request and
// every background step belongs to exactly one; the value below is what the edge finds from the host (in memory,
// no SQL) and carries, through the context, to every loader, command and background step (DESIGN.md).

export type CarShareStatus = 'Active' | 'Suspended';

/** Per-car-share overrides of the deployment's rate limits (§20); an omitted one is the deployment's setting. */
export interface CarShareLimits {
  CallerPerMinute?: number;
  AnonymousPerMinute?: number;
  AuthPerMinute?: number;
  CarSharePerMinute?: number;
}

export interface CarShare {
  id: string;
  /** An https origin, no trailing slash: `{base_url}` of sections 1–18; every absolute URL begins with it. */
  baseUrl: string;
  /** The host of `baseUrl`, lowercase, without port or trailing dot: what requests are matched on. */
  host: string;
  name: string;
  status: CarShareStatus;
  /** Why and since when it is suspended (CONTRACT §22, §23); null while Active (absent where not read). */
  suspendedReason?: string | null;
  suspendedDateUtc?: Date | null;
  isDefault: boolean;
  limits: CarShareLimits;
  /** `{baseUrl}/api/oauth` (§21). */
  issuer: string;
}

/** A `Host` (or `X-Forwarded-Host`) value as car shares are matched: lowercase, no port, no trailing dot. */
export function hostKey(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    h = end > 0 ? h.slice(0, end + 1) : h;
  } else {
    const colon = h.lastIndexOf(':');
    if (colon >= 0 && h.indexOf(':') === colon) h = h.slice(0, colon);
  }
  while (h.endsWith('.')) h = h.slice(0, -1);
  return h;
}

/** The issuer of a car share at `baseUrl` (§21). */
export const issuerOf = (baseUrl: string): string => `${baseUrl}/api/oauth`;
