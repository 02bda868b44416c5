// `npm run user-token -- ...`: a signed-in user's first token from the command line. It walks the authorization
// code flow with PKCE as a browser would (authorize, sign-in page, consent, redirect back) and exchanges the code,
// printing the token response. A real application sends the user's own browser instead (see /docs).
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, fetch } from 'undici';
import { carShareFromCli } from '../carshares/car-share.cli.js';
import { ClientApplication, ClientApplicationSchema } from '../clientapps/client-application.entity.js';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { carShareEm } from '../db/scope.js';
import { selfSignedCertPath } from '../tls.js';

const usage = `usage: npm run --silent user-token -- --client-id ID --client-secret SECRET --redirect-uri URI
                      --username U --password P [--scope "openid cars:read bookings:write"] [--car-share ID|URL]

Signs U in through the application (authorization code with PKCE, consent given) and prints the token response.
--scope defaults to every scope the application is allowed, read from the configured database.
--car-share names the car share (its Id or BaseUrl) the flow runs at; without it, the one at PUBLIC_URL.`;

type Config = ReturnType<typeof loadConfig>;

/**
 * Where the flow runs — the car share's address and the certificate file that verifies it (the self-signed one of
 * `localhost`, the local CA's for another host, CONTRACT §19) — and the scopes the application may ask for (CONTRACT
 * §4 AllowedScopes) when none were given, read in that car share from the database the service runs on.
 */
async function siteOf(
  clientId: string,
  config: Config,
  ref: string | undefined,
  scope: string | undefined,
): Promise<{ origin: string; caFile: string | undefined; scope: string }> {
  const caFile = (isDefault: boolean) =>
    config.TLS_CERT
      ? undefined
      : isDefault
        ? selfSignedCertPath(config.DATA_DIR)
        : join(config.DATA_DIR, 'tls', 'ca.crt');
  if (ref === undefined && scope !== undefined)
    return { origin: config.PUBLIC_URL, caFile: caFile(true), scope };
  const db = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    entities: [ClientApplicationSchema],
    migrate: false,
    appRole: config.DATABASE_APP_ROLE,
  });
  try {
    const carShare = await carShareFromCli(db.orm, ref, config.PUBLIC_URL);
    const site = { origin: carShare.baseUrl, caFile: caFile(carShare.isDefault) };
    if (scope !== undefined) return { ...site, scope };
    const app = await carShareEm(db.orm, carShare.id).findOne(ClientApplication, { clientId });
    if (!app) throw new Error(`no client application has the ClientId ${clientId}`);
    return { ...site, scope: app.allowedScopes.join(' ') };
  } finally {
    await db.close();
  }
}

const base64url = (b: Buffer) => b.toString('base64url');

/** Keeps cookies by name (the authorization server's are few and scoped under /api/oauth) across requests. */
function session(origin: string, dispatcher: Agent) {
  const cookies = new Map<string, string>();
  return async (url: string, init: { method?: string; body?: string } = {}) => {
    const headers: Record<string, string> = { accept: 'text/html' };
    if (cookies.size) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (init.body) headers['content-type'] = 'application/x-www-form-urlencoded';
    const r = await fetch(new URL(url, origin), { ...init, headers, redirect: 'manual', dispatcher });
    for (const line of r.headers.getSetCookie()) {
      const pair = line.split(';')[0] ?? '';
      const eq = pair.indexOf('=');
      const value = pair.slice(eq + 1);
      if (value && !/max-age=0|expires=thu, 01 jan 1970/i.test(line)) cookies.set(pair.slice(0, eq), value);
      else cookies.delete(pair.slice(0, eq));
    }
    return r;
  };
}

const field = (html: string, re: RegExp) => re.exec(html)?.[1]?.replace(/&#38;/g, '&');

async function main(): Promise<number> {
  const { values: v } = parseArgs({
    options: {
      'client-id': { type: 'string' },
      'client-secret': { type: 'string' },
      'redirect-uri': { type: 'string' },
      username: { type: 'string' },
      password: { type: 'string' },
      scope: { type: 'string' },
      'car-share': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (v.help) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const [clientId, secret, redirectUri, username, password] = [
    v['client-id'],
    v['client-secret'],
    v['redirect-uri'],
    v.username,
    v.password,
  ];
  if (!clientId || !secret || !redirectUri || !username || !password) {
    process.stderr.write(`${usage}\n`);
    return 2;
  }
  const config = loadConfig();
  const { origin, caFile, scope } = await siteOf(clientId, config, v['car-share'], v.scope);
  const ca = caFile ? readFileSync(caFile, 'utf8') : undefined;
  const dispatcher = new Agent(ca ? { connect: { ca } } : {});
  const go = session(origin, dispatcher);

  const verifier = base64url(randomBytes(32));
  const state = base64url(randomBytes(16));
  const authorize = new URL(`${origin}/api/oauth/auth`);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope,
    state,
    code_challenge: base64url(createHash('sha256').update(verifier).digest()),
    code_challenge_method: 'S256',
  }).toString();

  let url = authorize.toString();
  let r = await go(url);
  for (let step = 0; step < 20; step++) {
    const location = r.headers.get('location');
    if (location) {
      url = new URL(location, url).toString();
      if (url.startsWith(redirectUri)) break;
      r = await go(url);
      continue;
    }
    const html = await r.text();
    const action = field(html, /<form method="post" action="([^"]+)"/);
    const csrf = field(html, /name="csrf" value="([^"]+)"/);
    if (!action || !csrf || r.status >= 400)
      throw new Error(`the flow stopped on a page (${r.status}):\n${html}`);
    const answer = html.includes('name="password"') ? { username, password } : { decision: 'allow' };
    if (html.includes('name="password"') && html.includes('role="alert"'))
      throw new Error('sign-in refused: check the username and password');
    url = new URL(action, url).toString();
    r = await go(url, { method: 'POST', body: new URLSearchParams({ csrf, ...answer }).toString() });
  }
  const back = new URL(url);
  const code = back.searchParams.get('code');
  if (!code || back.searchParams.get('state') !== state)
    throw new Error(`no authorization code came back: ${url}`);

  const token = await fetch(`${origin}/api/oauth/token`, {
    method: 'POST',
    dispatcher,
    headers: {
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    }).toString(),
  });
  process.stdout.write(`${await token.text()}\n`);
  await dispatcher.close();
  return token.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    // parseArgs refuses an unknown or malformed option: the usage, like a missing one.
    if (String((err as { code?: unknown }).code ?? '').startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${(err as Error).message}\n${usage}\n`);
      process.exit(2);
    }
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
