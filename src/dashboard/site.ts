// The dashboard of the car share a request addresses (CONTRACT §21): its address, its own first-party client, and
// its session cookies sealed under its own keys (another car share's session cookie opens as none).
import type Koa from 'koa';
import type { CarShare } from '../carshares/car-share.js';
import type { OAuthClient } from './oauth.js';
import type { Sessions } from './session.js';

export interface DashboardSite {
  carShare: CarShare;
  /** The car share's BaseUrl: every absolute URL the dashboard writes or calls begins with it. */
  baseUrl: string;
  client: OAuthClient;
  sessions: Sessions;
}

/** Set by the dashboard's middleware before any of its routes runs. */
export const siteOf = (ctx: Koa.Context): DashboardSite => ctx.state.dashboard as DashboardSite;
