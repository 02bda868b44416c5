// The dashboard as an OAuth client of this service's authorization server (Authorization Code + PKCE, with its
// client secret): the authorization URL, and token and revocation requests. Those go over HTTPS to the very
// listener that received the operator's request, so they work behind any PUBLIC_URL; the connection is verified
// against the certificate that listener serves (it is talking to itself, and nothing else will do).
import { createHash, randomBytes, X509Certificate } from 'node:crypto';
import https from 'node:https';
import { isIP } from 'node:net';
import { type PeerCertificate, rootCertificates, type TLSSocket } from 'node:tls';
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
): string {
  const q = new URLSearchParams({
    client_id: client.clientId,
    response_type: 'code',
    redirect_uri: client.redirectUri,
    scope: DASHBOARD_SCOPE,
    state,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    // A new dashboard session always asks for the password, so signing out and handing over a screen is safe.
    prompt: 'login',
  });
  return `${baseUrl}${OAUTH}/auth?${q}`;
}

/** POSTs a form to this service's own listener (the one `ctx` arrived on), authenticated as the dashboard. */
function postToSelf(
  ctx: Koa.Context,
  baseUrl: string,
  client: OAuthClient,
  path: string,
  form: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const socket = ctx.req.socket as TLSSocket;
  const own = (
    typeof socket.getCertificate === 'function' ? socket.getCertificate() : null
  ) as PeerCertificate | null;
  if (!own?.raw) return Promise.reject(new Error('the dashboard is served only over this process’s HTTPS'));
  const host = new URL(baseUrl).hostname;
  const body = new URLSearchParams(form).toString();
  const basic = Buffer.from(
    `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`,
  ).toString('base64');
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: socket.localAddress?.replace(/^::ffff:/, ''),
        port: socket.localPort,
        method: 'POST',
        path: `${OAUTH}${path}`,
        agent: false,
        timeout: TIMEOUT_MS,
        servername: isIP(host) ? '' : host,
        ca: [new X509Certificate(own.raw).toString(), ...rootCertificates],
        checkServerIdentity: (_name, cert) =>
          cert.fingerprint256 === own.fingerprint256
            ? undefined
            : new Error('not this service’s certificate'),
        headers: {
          Host: new URL(baseUrl).host,
          Authorization: `Basic ${basic}`,
          'Content-Type': 'application/x-www-form-urlencoded',
          'Content-Length': Buffer.byteLength(body),
          Accept: 'application/json',
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
    req.on('error', reject);
    req.end(body);
  });
}

async function tokenRequest(
  ctx: Koa.Context,
  baseUrl: string,
  client: OAuthClient,
  form: Record<string, string>,
): Promise<TokenResult> {
  const { status, body } = await postToSelf(ctx, baseUrl, client, '/token', form);
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

export const exchangeCode = (
  ctx: Koa.Context,
  baseUrl: string,
  client: OAuthClient,
  code: string,
  verifier: string,
) =>
  tokenRequest(ctx, baseUrl, client, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: client.redirectUri,
    code_verifier: verifier,
  });

export const refreshTokens = (ctx: Koa.Context, baseUrl: string, client: OAuthClient, refreshToken: string) =>
  tokenRequest(ctx, baseUrl, client, { grant_type: 'refresh_token', refresh_token: refreshToken });

/** Revokes a token; sign-out goes on whatever the answer (the cookie is cleared anyway). */
export async function revokeToken(ctx: Koa.Context, baseUrl: string, client: OAuthClient, token: string) {
  await postToSelf(ctx, baseUrl, client, '/token/revocation', { token }).catch(() => undefined);
}
