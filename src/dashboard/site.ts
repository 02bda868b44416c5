// The dashboard of the car share a request addresses (CONTRACT §21): its address, its own first-party client, and
// its session cookies sealed under its own keys (another car share's session cookie opens as none).
import type Koa from 'koa';
import type { CarShare } from '../carshares/car-share.js';
import type { Frame } from './frame.js';
import type { OAuthClient, SelfSite } from './oauth.js';
import type { Sessions } from './session.js';

export interface DashboardSite extends SelfSite {
  carShare: CarShare;
  /** The car share's BaseUrl: every absolute URL the dashboard writes or calls begins with it. */
  baseUrl: string;
  client: OAuthClient;
  sessions: Sessions;
  /** Which pages these are: the dashboard, or the platform console. */
  frame: Frame;
  /** The certificate file that verifies the car share's address, for ready-made curl commands; none for a real one. */
  caFile: string | undefined;
}

/** Set by the dashboard's middleware before any of its routes runs. */
export const siteOf = (ctx: Koa.Context): DashboardSite => ctx.state.dashboard as DashboardSite;
