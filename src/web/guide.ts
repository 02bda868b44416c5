// The newcomer's guide at the top of /docs (the OpenAPI description, Markdown): the first token and the first
// call as commands that work against a fresh `npm start`, then authentication in full, then the guides of their
// own modules (the first booking, webhooks, errors and limits). Each car share has its own: its commands and links
// are under its BaseUrl, and it quotes the car share's own rate limits (CONTRACT §19, §20).
import { isIP } from 'node:net';
import { isAbsolute } from 'node:path';
import { scopeDescriptions } from '../access/scope.catalogue.js';
import type { CarShareLimits } from '../carshares/car-share.js';
import type { Config } from '../config.js';
import { rateLimitSettings } from '../http/rate-limits.js';
import { trimEnd } from '../shared/trim.js';
import { bookingGuide } from './booking.guide.js';
import { errorsGuide } from './errors.guide.js';
import { platformGuide } from './platform.guide.js';
import { webhooksGuide } from './webhooks.guide.js';

export interface GuideSettings {
  /** The car share's BaseUrl: every command and link of the guide is under it. */
  baseUrl: string;
  /** The command line's `--car-share` option naming the car share, for any but the default one. */
  carShareOption?: string | undefined;
  /** The car share's Id, which every event payload carries (§20). */
  carShareId?: string | undefined;
  /** The certificate file curl must trust (`--cacert`); absent when a real certificate is configured. */
  caFile?: string | undefined;
  /** `caFile` is the local CA that issues the certificates of car share hosts other than `localhost` (§19). */
  caFileIsLocalCa?: boolean | undefined;
  accessTokenSeconds: number;
  refreshTokenSeconds: number;
  perMinute: number;
  anonymousPerMinute: number;
  authPerMinute: number;
  /** The car share's ceiling on all its requests per minute; 0 or absent: none. */
  carSharePerMinute?: number | undefined;
}

/** What the guide needs of a car share (the REST facade's view of it, rest-facade/respond.ts). */
export interface GuideCarShare {
  id?: string | undefined;
  baseUrl: string;
  isDefault?: boolean | undefined;
  limits?: CarShareLimits | undefined;
}

const duration = (s: number): string =>
  s % 86_400 === 0 ? `${s / 86_400} days` : s % 60 === 0 ? `${s / 60} minutes` : `${s} seconds`;

/** The deployment's side of the guide: every car share's guide is made from it. */
export type DeploymentGuideSettings = Omit<
  GuideSettings,
  'baseUrl' | 'carShareOption' | 'caFileIsLocalCa' | 'carShareId'
> & {
  /** The local CA's certificate, which verifies car share hosts other than `localhost` (with `caFile` only). */
  localCaFile?: string | undefined;
};

/** The deployment's settings the guide quotes, as configured, with the defaults of an unset variable. */
export const guideSettings = (
  config: Partial<
    Pick<
      Config,
      | 'ACCESS_TOKEN_TTL_SECONDS'
      | 'REFRESH_TOKEN_TTL_SECONDS'
      | 'RATE_LIMIT_PER_MINUTE'
      | 'RATE_LIMIT_ANONYMOUS_PER_MINUTE'
      | 'RATE_LIMIT_AUTH_PER_MINUTE'
      | 'RATE_LIMIT_CAR_SHARE_PER_MINUTE'
    >
  >,
  caFile: string | undefined,
  localCaFile?: string | undefined,
): DeploymentGuideSettings => ({
  caFile,
  localCaFile,
  accessTokenSeconds: config.ACCESS_TOKEN_TTL_SECONDS ?? 900,
  refreshTokenSeconds: config.REFRESH_TOKEN_TTL_SECONDS ?? 1_209_600,
  ...rateLimitSettings(config),
});

/** One car share's guide: the deployment's settings, its address, its own limits where it has them. */
export const guideFor =
  ({ localCaFile, ...settings }: DeploymentGuideSettings) =>
  (carShare: GuideCarShare): string => {
    const l = carShare.limits ?? {};
    // Which file verifies the host: `localhost` and addresses the self-signed certificate, other hosts the CA's.
    const host = new URL(carShare.baseUrl).hostname;
    const byLocalCa = Boolean(settings.caFile && localCaFile && host !== 'localhost' && isIP(host) === 0);
    return guide({
      ...settings,
      caFile: byLocalCa ? localCaFile : settings.caFile,
      caFileIsLocalCa: byLocalCa,
      baseUrl: carShare.baseUrl,
      carShareId: carShare.id,
      carShareOption: carShare.isDefault === false ? carShare.baseUrl : undefined,
      perMinute: l.CallerPerMinute ?? settings.perMinute,
      anonymousPerMinute: l.AnonymousPerMinute ?? settings.anonymousPerMinute,
      authPerMinute: l.AuthPerMinute ?? settings.authPerMinute,
      carSharePerMinute: l.CarSharePerMinute ?? settings.carSharePerMinute,
    });
  };

export function guide(g: GuideSettings): string {
  const base = trimEnd(g.baseUrl, '/');
  const curl = g.caFile ? `curl --cacert ${g.caFile}` : 'curl';
  // The command line acts on the default car share unless told another (CONTRACT §22).
  const cs = g.carShareOption ? ` --car-share ${g.carShareOption}` : '';
  const scopes = Object.entries(scopeDescriptions)
    .map(([s, d]) => `| \`${s}\` | ${d} |`)
    .join('\n');
  return `## Getting started

A client application gets a token from the authorization server and sends it as \`Authorization: Bearer …\`.
On the machine running the service, in its folder (\`npm start\` running in another terminal):

1. Register an application allowed to search cars. It prints its \`ClientId\` and \`ClientSecret\` (shown only
   once), then the exact token request for it:

   \`\`\`sh
   npm run --silent admin -- create-client${cs} --name "My first app" --grant client_credentials --scopes "cars:read"
   \`\`\`

2. Ask for a token: run the command step 1 printed, or set \`CLIENT_ID\` and \`CLIENT_SECRET\` to the two values
   (\`CLIENT_ID='…' CLIENT_SECRET='…'\`) and run:

   \`\`\`sh
   ${curl} -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials -d scope=cars:read ${base}/api/oauth/token
   \`\`\`

   The answer holds \`access_token\` (valid ${duration(g.accessTokenSeconds)}).

3. Set \`ACCESS_TOKEN\` to it (\`ACCESS_TOKEN='…'\`) and call the API:

   \`\`\`sh
   ${curl} -H "Authorization: Bearer $ACCESS_TOKEN" ${base}/api/cars
   \`\`\`

${g.caFile ? `\`--cacert\` trusts ${g.caFileIsLocalCa ? 'the local certificate authority that issued this address’s certificate' : 'the self-signed certificate the service made on its first start'}${isAbsolute(g.caFile) ? '' : ' (run the commands from the project folder)'}; Node clients can use \`NODE_EXTRA_CA_CERTS=${g.caFile}\`.\n\n` : ''}To try it on sample data, \`npm run --silent admin -- seed-demo${cs}\` adds verified owners, cars around one city, a
borrower and bookings, and prints their passwords, an application, and the commands that book a car as that borrower.

Operators can register applications in the [dashboard](${base}/dashboard) too: each application's page shows
its token request ready to copy. GraphQL takes the same token at \`${base}/graphql\` (GraphiQL in a browser).

## Authentication

The authorization server is OAuth 2.0 / OpenID Connect at issuer \`${base}/api/oauth\`; its discovery document is
[\`/api/oauth/.well-known/openid-configuration\`](${base}/api/oauth/.well-known/openid-configuration).

| Endpoint | Path |
|---|---|
| Authorization | \`/api/oauth/auth\` |
| Token | \`/api/oauth/token\` |
| Introspection | \`/api/oauth/token/introspection\` |
| Revocation | \`/api/oauth/token/revocation\` |
| JWKS | \`/api/oauth/jwks\` |

### Client credentials (server to server)

An application acting as itself: \`grant_type=client_credentials\` with its id and secret in HTTP Basic
(\`-u id:secret\`) or as the form fields \`client_id\` and \`client_secret\`, and \`scope\`: space-separated scopes
among those the application is allowed. These tokens are not refreshed: ask for a new one.

### Authorization code with PKCE (acting for a user)

An application acting for a signed-in user registers a redirect URI and the \`authorization_code\` grant (plus
\`--refresh\` for refresh tokens). Then, as any OpenID Connect client library does:

1. Make a random \`code_verifier\` (43–128 characters) and its \`code_challenge\` = base64url(SHA-256(verifier)).
2. Send the user's browser to
   \`${base}/api/oauth/auth?response_type=code&client_id=…&redirect_uri=…&scope=openid%20offline_access%20cars:read&code_challenge=…&code_challenge_method=S256&state=…\`.
   The user signs in and consents (once per application); the browser comes back to the redirect URI with \`code\`.
3. Exchange it: \`POST /api/oauth/token\` with \`grant_type=authorization_code\`, \`code\`, \`redirect_uri\`,
   \`code_verifier\` and the client's credentials. The answer holds \`access_token\` and, with \`offline_access\`
   and an application allowed to refresh, \`refresh_token\`.
4. Renew without the user: \`grant_type=refresh_token&refresh_token=…\`. Every refresh returns a new refresh
   token; using an old one again revokes the whole grant.

The [dashboard](${base}/dashboard) signs in operators exactly this way. A user account is created with
\`POST /api/useraccounts\` (no token needed) or \`npm run admin -- create-user${cs}\`.

To try the whole user flow from the service's folder without writing an app, register one with
\`--grant authorization_code --redirect-uri http://127.0.0.1:8765/callback --scopes "openid cars:read"\`, then
\`npm run --silent user-token -- --client-id … --client-secret=… --redirect-uri http://127.0.0.1:8765/callback
--username … --password …\` walks it as a browser would (authorize, sign in, consent, code, PKCE exchange) and
prints the token response.

### Token lifetimes

| Token | Lifetime |
|---|---|
| Access token (opaque) | ${duration(g.accessTokenSeconds)} |
| Refresh token | ${duration(g.refreshTokenSeconds)}, rotated on every use |

A request without a token is \`401\` with \`WWW-Authenticate: Bearer realm="carshare"\`; a bad, expired or revoked
token is \`401\` with \`error="invalid_token"\`; a token without the scope an operation needs is \`403\` with
\`error="insufficient_scope"\`.

### Scopes

| Scope | Grants |
|---|---|
${scopes}

${bookingGuide({ base, curl, carShareOption: cs })}
${webhooksGuide({ base, curl, carShareId: g.carShareId })}
${g.carShareOption ? '' : `${platformGuide({ base, curl })}\n`}${errorsGuide(g)}`;
}
