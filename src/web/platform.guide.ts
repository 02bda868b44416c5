// The Platform guide of /docs (CONTRACT §22, §23), shown at the default car share's address only, where the platform
// API answers: who may administer car shares, how to make the first platform operator, the API, and what
// suspending and deleting a car share do.

export function platformGuide(o: { base: string; curl: string }): string {
  return `## Platform

One deployment serves many car shares, each at its own address. The **platform** creates, watches, suspends and
deletes them; it never reads a car share's own data (users, cars, bookings, verifications, feedback, webhooks,
client applications, audit, secrets), the default car share's included: that stays the work of each car share's
operators (\`ops\`).

### Who holds it

- **Role \`platform\`**: held only by accounts of the default car share (the one at this address); elsewhere
  \`Roles\` refuses it (400 \`InvalidValue\`). The first platform operator is made from the service's folder:
  \`npm run admin -- create-user --username you@example.com --password '…' --first-name … --last-name … --platform\`.
- **Scope \`platform\`**: granted only to accounts with the role, and to client applications of the default car
  share whose \`AllowedScopes\` include it (client credentials, for automation). It confers nothing else.

The **platform console** at [${o.base}/platform](${o.base}/platform) does all of the below in a browser: sign in with
an account holding the role (others get a 403 page), then list, create, suspend, reactivate and delete car shares,
add an operator to one, and read the platform's audit.

A token with the scope:

\`\`\`sh
${o.curl} -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials -d scope=platform ${o.base}/api/oauth/token
${o.curl} -H "Authorization: Bearer $TOKEN" ${o.base}/platform/api/carshares
\`\`\`

### The platform API

On this address only (404 on every other car share's), with the conventions of the rest of the API (envelopes,
search, formats, ETags, errors); the same operations are GraphQL fields (\`carShares\`, \`carShare\`,
\`createCarShare\`, \`updateCarShare\`, \`suspendCarShare\`, \`reactivateCarShare\`, \`deleteCarShare\`,
\`addCarShareOperator\`, \`platformAudit\`).

| Method and path | What it does |
|---|---|
| \`GET /platform/api/carshares\` | search; filters \`status\`, \`host\`, \`name\`; \`embed=carshare.usage\` adds each one's usage |
| \`POST /platform/api/carshares\` | creates one with its first operator (\`{BaseUrl, Name, Operator:{Username, Password?}, Limits?}\`); a generated password is shown once, in this answer |
| \`GET\`, \`PATCH /platform/api/carshares/{Id}\` | reads one with its \`Usage\`; changes \`Name\` and \`Limits\` (null returns a limit to the deployment's setting) |
| \`PUT /platform/api/carshares/{Id}/suspend\`, \`/reactivate\` | 202; \`{Reason}\` for a suspension |
| \`DELETE /platform/api/carshares/{Id}\` | 204, only once suspended; never the default car share |
| \`POST /platform/api/carshares/{Id}/operators\` | adds an operator to a car share (the way back in when its operators are locked out) |
| \`GET /platform/api/audit\` | the platform's own trail; each action is also written to the car share's trail as \`ActorType: Platform\` |

### Suspending and deleting

A suspended car share answers every request but the probes with **403** \`CarShareSuspended\` (OAuth endpoints
\`access_denied\`, pages a page saying so, open WebSocket connections closed with 4403), on every instance by the time
the 202 is sent. Nothing of it is lost: its tokens, sessions and secrets work again after reactivation, its timers go
on, and its webhook deliveries wait and are sent within a minute of reactivation, suspended time not counted toward
retries or \`Failing\`. Deleting a suspended car share frees its host at once and removes every row of it within a
minute; a new car share may then take the host, with new keys.

The service's command line does the same from its folder: \`npm run admin -- suspend-car-share\`,
\`reactivate-car-share\` and \`delete-car-share\` (which asks for the car share's host with \`--confirm\`); each
names the car share by its Id or its BaseUrl.
`;
}
