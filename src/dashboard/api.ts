// The dashboard's GraphQL client: runs a document with the operator's access token, refreshing it when it has
// expired or been refused once; a session that cannot be renewed ends (the operator signs in again).
import type { FormattedExecutionResult } from 'graphql';
import type Koa from 'koa';
import type { CarShare } from '../carshares/car-share.js';
import type { Clock } from '../shared/clock.js';
import { isDomainError } from '../shared/errors.js';
import type { ApiError } from './errors.js';
import { refreshTokens } from './oauth.js';
import type { Session } from './session.js';
import { siteOf } from './site.js';

/** Runs one GraphQL operation as the bearer of `authorization`, like the REST facade does. */
export type Execute = (
  document: string,
  variables: Record<string, unknown>,
  authorization: string,
  requestId: string,
  carShare: CarShare,
) => Promise<FormattedExecutionResult>;

export type Result<T> = { ok: true; data: T } | { ok: false; error: ApiError };

/** The session cannot be used or renewed: sign in again. */
export class SessionEnded extends Error {
  override readonly name = 'SessionEnded';
}

export interface ApiDeps {
  execute: Execute;
  clock: Clock;
}

export interface Api {
  readonly session: Session;
  run<T>(document: string, variables?: Record<string, unknown>): Promise<Result<T>>;
}

const EARLY_MS = 30_000;

function apiError(e: NonNullable<FormattedExecutionResult['errors']>[number]): ApiError {
  const ext = (e.extensions ?? {}) as Partial<ApiError>;
  return {
    code: typeof ext.code === 'string' ? ext.code : 'InternalServerError',
    message: e.message,
    field: ext.field,
    errors: Array.isArray(ext.errors) ? ext.errors : [],
    meta: ext.meta,
  };
}

export function apiFor(ctx: Koa.Context, start: Session, deps: ApiDeps): Api {
  let session = start;
  const site = siteOf(ctx);
  const now = () => deps.clock.now().getTime();

  const refresh = async (): Promise<void> => {
    if (!session.refreshToken) throw new SessionEnded('no refresh token');
    const r = await refreshTokens(ctx, site, session.refreshToken);
    if (!r.ok || !r.tokens.scope.includes(site.frame.scope))
      throw new SessionEnded('the session could not be renewed');
    session = {
      ...session,
      accessToken: r.tokens.accessToken,
      refreshToken: r.tokens.refreshToken ?? session.refreshToken,
      expiresAt: now() + r.tokens.expiresIn * 1000,
    };
    site.sessions.write(ctx, session);
  };

  /** undefined when the token was refused. */
  const exec = async (document: string, variables: Record<string, unknown>) => {
    try {
      const r = await deps.execute(
        document,
        variables,
        `Bearer ${session.accessToken}`,
        String(ctx.state.requestId),
        site.carShare,
      );
      return r.errors?.[0]?.extensions?.code === 'Unauthorized' ? undefined : r;
    } catch (e) {
      if (isDomainError(e) && e.code === 'Unauthorized') return undefined;
      throw e;
    }
  };

  return {
    get session() {
      return session;
    },
    async run<T>(document: string, variables: Record<string, unknown> = {}): Promise<Result<T>> {
      if (session.expiresAt - EARLY_MS < now()) await refresh();
      let r = await exec(document, variables);
      if (!r) {
        // Refused before running (revoked or expired early): renew once; an operation never ran twice.
        await refresh();
        r = await exec(document, variables);
        if (!r) throw new SessionEnded('the renewed token was refused');
      }
      const first = r.errors?.[0];
      if (first) return { ok: false, error: apiError(first) };
      return { ok: true, data: r.data as T };
    },
  };
}
