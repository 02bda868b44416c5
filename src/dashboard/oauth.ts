// The dashboard as an OAuth client of its car share's authorization server (Authorization Code + PKCE, with its
// client secret): the authorization URL, and token and revocation requests. Those go over HTTPS to the very
// listener that received the operator's request, addressed to the car share's host, so they work behind any
// BaseUrl; the connection is pinned to the certificate that listener serves (it is talking to itself, and nothing
// else will do).
import { createHash, randomBytes, X509Certificate } from 'node:crypto';
import https from 'node:https';
import { isIP } from 'node:net';
import tls, { type PeerCertificate, type TLSSocket } from 'node:tls';
import type Koa from 'koa';

export interface OAuthClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

export interface TokenSet {
  accessToken: string;
  refreshToken: string | null;
  expiresIn: number;
  scope: string[];
}

/** Where the dashboard's own requests go: its car share's address, client, and what may have issued its certificate. */
export interface SelfSite {
  baseUrl: string;
  client: OAuthClient;
  /** The local CA that issues the certificates of car share hosts other than `localhost`, once it exists. */
  localCa(): X509Certificate | undefined;
}

export type TokenResult = { ok: true; tokens: TokenSet } | { ok: false; error: string; description: string };

/** The dashboard asks only for operator privileges; the authorization server grants them only to operators. */
export const DASHBOARD_SCOPE = 'ops';
const OAUTH = '/api/oauth';
const TIMEOUT_MS = 10_000;

export const newVerifier = (): string => randomBytes(32).toString('base64url');

export function authorizationUrl(
  baseUrl: string,
  client: OAuthClient,
  state: string,
  verifier: string,
  scope: string = DASHBOARD_SCOPE,
): string {
  const q = new URLSearchParams({
    client_id: client.clientId,
    response_type: 'code',
    redirect_uri: client.redirectUri,
    scope,
    state,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    // A new dashboard session always asks for the password, so signing out and handing over a screen is safe.
    prompt: 'login',
  });
  return `${baseUrl}${OAUTH}/auth?${q}`;
}

/** A certificate the local CA issued for `host`, valid now. */
function issuedByLocalCa(raw: Buffer, ca: X509Certificate | undefined, host: string): boolean {
  if (!ca) return false;
  try {
    const leaf = new X509Certificate(raw);
    const now = Date.now();
    return (
      leaf.checkIssued(ca) &&
      leaf.verify(ca.publicKey) &&
      leaf.checkHost(host) !== undefined &&
      new Date(leaf.validFrom).getTime() <= now &&
      now < new Date(leaf.validTo).getTime()
    );
  } catch {
    return false;
  }
}

/**
 * A TLS connection to this service's own listener (the one `ctx` arrived on), made sure to be that listener: it
 * must present the very certificate this request was served with, or (when that request resumed a TLS session, so
 * the certificate it names is the listener's default one) one that the service's local CA issued for the car
 * share's host (CONTRACT §19). No trust store holds those: the check is made here, and nothing is sent before it.
 */
function connectToSelf(ctx: Koa.Context, site: SelfSite): Promise<TLSSocket> {
  const socket = ctx.req.socket as TLSSocket;
  const own = (
    typeof socket.getCertificate === 'function' ? socket.getCertificate() : null
  ) as PeerCertificate | null;
  if (!own?.raw) return Promise.reject(new Error('the dashboard is served only over this process’s HTTPS'));
  const host = new URL(site.baseUrl).hostname;
  return new Promise((resolve, reject) => {
    const conn = tls.connect({
      host: socket.localAddress?.replace(/^::ffff:/, ''),
      port: socket.localPort,
      servername: isIP(host) ? '' : host,
      // Checked below against the certificate itself, which is stricter than any chain.
      rejectUnauthorized: false,
      timeout: TIMEOUT_MS,
    });
    const fail = (err: Error) => {
      conn.destroy();
      reject(err);
    };
    conn.once('timeout', () => fail(new Error('the authorization server did not answer in time')));
    conn.once('error', fail);
    conn.once('secureConnect', () => {
      const peer = conn.getPeerCertificate();
      const ours =
        peer.fingerprint256 === own.fingerprint256 ||
        (socket.isSessionReused() && issuedByLocalCa(peer.raw, site.localCa(), host));
      if (!ours) return fail(new Error('not this service’s certificate'));
      conn.removeListener('error', fail);
      conn.setTimeout(0);
      resolve(conn);
    });
  });
}

/** POSTs a form to this service's own listener (the one `ctx` arrived on), authenticated as the dashboard. */
async function postToSelf(
  ctx: Koa.Context,
  site: SelfSite,
  path: string,
  form: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const { baseUrl, client } = site;
  const conn = await connectToSelf(ctx, site);
  const body = new URLSearchParams(form).toString();
  const basic = Buffer.from(
    `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`,
  ).toString('base64');
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        // No agent: this one connection, already checked, carries the request.
        createConnection: () => conn,
        method: 'POST',
        path: `${OAUTH}${path}`,
        timeout: TIMEOUT_MS,
        headers: {
          Host: new URL(baseUrl).host,
          Authorization: `Basic ${basic}`,
          'Content-Type': 'application/x-www-form-urlencoded',
          'Content-Length': Buffer.byteLength(body),
          Accept: 'application/json',
          Connection: 'close',
          // Counted against the operator's address, not the server's, when a trusted proxy is in front.
          'X-Forwarded-For': ctx.ip,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: Record<string, unknown> = {};
          try {
            parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
          } catch {
            parsed = { error: 'server_error', error_description: 'the authorization server answered oddly' };
          }
          resolve({ status: res.statusCode ?? 500, body: parsed });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('the authorization server did not answer in time')));
    req.on('error', (err) => {
      conn.destroy();
      reject(err);
    });
    req.end(body);
  });
}

async function tokenRequest(
  ctx: Koa.Context,
  site: SelfSite,
  form: Record<string, string>,
): Promise<TokenResult> {
  const { status, body } = await postToSelf(ctx, site, '/token', form);
  if (status !== 200 || typeof body.access_token !== 'string')
    return {
      ok: false,
      error: String(body.error ?? 'server_error'),
      description: String(body.error_description ?? ''),
    };
  return {
    ok: true,
    tokens: {
      accessToken: body.access_token,
      refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : null,
      expiresIn: Number(body.expires_in ?? 0),
      scope: String(body.scope ?? '')
        .split(' ')
        .filter(Boolean),
    },
  };
}

export const exchangeCode = (ctx: Koa.Context, site: SelfSite, code: string, verifier: string) =>
  tokenRequest(ctx, site, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: site.client.redirectUri,
    code_verifier: verifier,
  });

export const refreshTokens = (ctx: Koa.Context, site: SelfSite, refreshToken: string) =>
  tokenRequest(ctx, site, { grant_type: 'refresh_token', refresh_token: refreshToken });

/** Revokes a token; sign-out goes on whatever the answer (the cookie is cleared anyway). */
export async function revokeToken(ctx: Koa.Context, site: SelfSite, token: string) {
  await postToSelf(ctx, site, '/token/revocation', { token }).catch(() => undefined);
}
