// Real access tokens from the service's authorization server: client credentials for an application, and the
// authorization code flow (sign-in and consent pages, PKCE) for a user, as an integrator would get them.
import * as oc from 'openid-client';
import { Agent, fetch, Headers, type RequestInit } from 'undici';

export interface Client {
  clientId: string;
  clientSecret: string;
}

export async function clientCredentialsToken(origin: string, ca: string, c: Client, scope: string) {
  const agent = new Agent({ connect: { ca } });
  const r = await fetch(`${origin}/api/oauth/token`, {
    method: 'POST',
    dispatcher: agent,
    headers: {
      authorization: `Basic ${Buffer.from(`${c.clientId}:${c.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope }).toString(),
  });
  const body = (await r.json()) as { access_token?: string };
  await agent.close();
  if (!body.access_token) throw new Error(`no client credentials token: ${JSON.stringify(body)}`);
  return body.access_token;
}

/** Signs the user in and allows the app, following the service's own pages; returns the access token. */
export async function userToken(
  origin: string,
  ca: string,
  c: Client,
  redirectUri: string,
  user: { username: string; password: string },
  scope: string,
): Promise<string> {
  const agent = new Agent({ connect: { ca } });
  const cookies = new Map<string, string>();
  const go = async (url: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers as Record<string, string> | undefined);
    headers.set('cookie', [...cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const r = await fetch(url, { ...init, headers, redirect: 'manual', dispatcher: agent });
    for (const line of r.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1));
    }
    return r;
  };
  const config = await oc.discovery(
    new URL(`${origin}/api/oauth`),
    c.clientId,
    undefined,
    oc.ClientSecretBasic(c.clientSecret),
    {
      [oc.customFetch]: (url, options) =>
        fetch(url, { ...(options as RequestInit), dispatcher: agent }) as never,
    },
  );
  const verifier = oc.randomPKCECodeVerifier();
  const state = oc.randomState();
  let url = oc
    .buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope,
      state,
      code_challenge: await oc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    })
    .toString();
  let init: RequestInit = {};
  for (let step = 0; step < 20; step++) {
    const r = await go(url, init);
    init = {};
    if (r.status >= 300 && r.status < 400) {
      const next = new URL(r.headers.get('location')!, url).toString();
      await r.body?.cancel();
      if (next.startsWith(redirectUri)) {
        const tokens = await oc.authorizationCodeGrant(config, new URL(next), {
          pkceCodeVerifier: verifier,
          expectedState: state,
        });
        await agent.close();
        return tokens.access_token;
      }
      url = next;
      continue;
    }
    const html = await r.text();
    const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
    if (!action || !csrf) throw new Error(`sign-in stopped on a page: ${html.slice(0, 300)}`);
    const fields: Record<string, string> = html.includes('name="password"')
      ? { csrf, username: user.username, password: user.password }
      : { csrf, decision: 'allow' };
    url = new URL(action.replace(/&#38;/g, '&'), url).toString();
    init = {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    };
  }
  throw new Error('the authorization code flow did not finish');
}
