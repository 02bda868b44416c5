// The client application pages: the list, the registration form, one app with its integration panel and
// actions, the secret shown once, and the delete confirmation.
import { apiScopes, scopes } from '../access/actor.js';
import { scopeDescriptions } from '../access/scope.catalogue.js';
import { auditLink } from './audit.pages.js';
import type { Problem } from './errors.js';
import { actionButton, type Choice, checkboxes, csrfField, fieldError, secretField } from './forms.js';
import { type Html, html, when } from './html.js';
import { BASE } from './layout.js';

export interface App {
  id: string;
  name: string;
  description: string | null;
  clientId: string;
  grantTypes: string[];
  redirectUris: string[];
  allowedScopes: string[];
  allowRefresh: boolean;
  isFirstParty: boolean;
  status: 'Active' | 'Suspended';
  lastUsedDateUtc: string | null;
  connectedUsers: number;
  createdDateUtc: string;
}

export interface Draft {
  name: string;
  description: string;
  grantTypes: string[];
  allowedScopes: string[];
  redirectUris: string[];
  allowRefresh: boolean;
}

const grantChoices: Choice[] = [
  {
    value: 'client_credentials',
    label: 'client_credentials',
    hint: 'The app acts for itself (machine to machine).',
  },
  {
    value: 'authorization_code',
    label: 'authorization_code',
    hint: 'The app signs people in and acts for them (PKCE); needs redirect URIs.',
  },
];
const scopeChoices: Choice[] = scopes.map((s) => ({ value: s, label: s, hint: scopeDescriptions[s] }));
const path = (app: Pick<App, 'id'>) => `${BASE}/clients/${app.id}`;

export const status = (s: string): Html => html`<span class="badge badge-${s.toLowerCase()}">${s}</span>`;
const codes = (xs: readonly string[]): Html =>
  xs.length
    ? html`${xs.map((x, i) => html`${i ? ', ' : ''}<code>${x}</code>`)}`
    : html`<span class="muted">none</span>`;

export function listPage(p: { total: number; nodes: App[] }): Html {
  const rows = p.nodes.map(
    (
      a,
    ) => html`<tr><th scope="row"><a href="${path(a)}">${a.name}</a>${a.isFirstParty ? html` <span class="muted">(this dashboard)</span>` : ''}</th>
<td><code>${a.clientId}</code></td><td>${codes(a.grantTypes)}</td><td>${codes(a.allowedScopes)}</td><td>${status(a.status)}</td><td>${when(a.lastUsedDateUtc)}</td><td>${a.connectedUsers}</td></tr>`,
  );
  return html`<p><a class="button" href="${BASE}/clients/new">Register a client application</a></p>
<table><caption>${p.total} client application${p.total === 1 ? '' : 's'}</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Client ID</th><th scope="col">Grant types</th><th scope="col">Allowed scopes</th><th scope="col">Status</th><th scope="col">Last used</th><th scope="col">Connected users</th></tr></thead>
<tbody>${rows}</tbody></table>`;
}

export function formPage(csrf: string, d?: Draft, problem?: Problem): Html {
  const name = fieldError(problem, 'name');
  const description = fieldError(problem, 'description');
  const uris = fieldError(problem, 'redirectUris');
  return html`<form method="post" action="${BASE}/clients" novalidate>${csrfField(csrf)}
<p><label for="f-name">Name</label> <span class="hint" id="h-name">3 to 100 characters, shown to people on the consent page.</span>
<input id="f-name" name="name" required minlength="3" maxlength="100" value="${d?.name ?? ''}" aria-describedby="h-name"${name.attrs}>${name.message}</p>
<p><label for="f-description">Description</label> <span class="hint">Optional, up to 1000 characters; also on the consent page.</span>
<textarea id="f-description" name="description" maxlength="1000" rows="2"${description.attrs}>${d?.description ?? ''}</textarea>${description.message}</p>
${checkboxes('grantTypes', 'Grant types', grantChoices, d?.grantTypes ?? ['client_credentials'], problem)}
${checkboxes('allowedScopes', 'Allowed scopes: the most any token of this app can hold', scopeChoices, d?.allowedScopes ?? [], problem)}
<p><label for="f-redirectUris">Redirect URIs</label> <span class="hint" id="h-redirectUris">One per line, matched exactly: https, or http only on localhost, 127.0.0.1 or [::1]; no fragment. Needed for authorization_code.</span>
<textarea id="f-redirectUris" name="redirectUris" rows="3" class="mono" aria-describedby="h-redirectUris"${uris.attrs}>${(d?.redirectUris ?? []).join('\n')}</textarea>${uris.message}</p>
<p><input type="checkbox" id="f-allowRefresh" name="allowRefresh"${d?.allowRefresh ? html` checked` : ''}> <label for="f-allowRefresh">Issue refresh tokens: people’s sign-ins last 14 days without asking again</label></p>
<p class="actions"><button type="submit">Register the application</button> <a href="${BASE}/clients">Cancel</a></p></form>`;
}

/** Issuer, endpoints and a ready curl; with the secret filled in right after create or rotate. */
export function integration(app: App, baseUrl: string, secret?: string, caFile?: string): Html {
  const issuer = `${baseUrl}/api/oauth`;
  // The self-signed certificate of a default start, which curl must be told to trust.
  const cmd = caFile ? `curl --cacert ${caFile}` : 'curl';
  const api = app.allowedScopes.filter((s) => (apiScopes as readonly string[]).includes(s));
  const user = secret ? `'${app.clientId}:${secret}'` : `"${app.clientId}:$CLIENT_SECRET"`;
  const curl = `${cmd} -u ${user} \\\n  -d grant_type=client_credentials \\\n  -d scope='${api.join(' ')}' \\\n  ${issuer}/token`;
  const cc = app.grantTypes.includes('client_credentials')
    ? html`<h3>A token with client credentials</h3>${secret ? '' : html`<p class="hint">Set <code>CLIENT_SECRET</code> to the secret shown when the app was registered or its secret last rotated.</p>`}
<pre id="curl-${app.id}" class="mono">${curl}</pre><p><button type="button" class="secondary" data-copy="curl-${app.id}" hidden>Copy the command</button> <span class="copied" role="status" data-copied-for="curl-${app.id}"></span></p>
<p class="hint">Then call the API with <code>Authorization: Bearer &lt;access_token&gt;</code>, e.g. <code>${cmd} -H "Authorization: Bearer $ACCESS_TOKEN" ${baseUrl}/api/cars</code>. Tokens last 15 minutes and are not refreshed: ask for a new one.</p>`
    : '';
  return html`<section aria-labelledby="integration-${app.id}"><h2 id="integration-${app.id}">Integration</h2>
<dl class="pairs"><dt>Issuer</dt><dd><code>${issuer}</code></dd>
<dt>Discovery</dt><dd><code>${issuer}/.well-known/openid-configuration</code></dd>
<dt>Token endpoint</dt><dd><code>${issuer}/token</code></dd>
${app.grantTypes.includes('authorization_code') ? html`<dt>Authorization endpoint</dt><dd><code>${issuer}/auth</code> (PKCE with S256 is required)</dd>` : ''}
<dt>Client ID</dt><dd><code>${app.clientId}</code></dd><dt>Client authentication</dt><dd>HTTP Basic (<code>client_secret_basic</code>) or form fields (<code>client_secret_post</code>)</dd></dl>${cc}</section>`;
}

export function appPage(app: App, baseUrl: string, csrf: string, caFile?: string): Html {
  const scopeList = app.allowedScopes.map(
    (s) => html`<li><code>${s}</code> — ${scopeDescriptions[s as keyof typeof scopeDescriptions] ?? ''}</li>`,
  );
  const own = app.isFirstParty
    ? html`<p class="hint">This is the dashboard’s own application: it cannot be deleted, and suspending it would sign every operator out, so it is managed from the command line.</p>`
    : html`${
        app.status === 'Active'
          ? html`<p id="suspend-note" class="hint">Suspending revokes every token, grant and consent of the app at once, and refuses its requests until it is reactivated.</p>${actionButton(`${path(app)}/suspend`, 'Suspend', csrf, { cls: 'danger', describedBy: 'suspend-note' })}`
          : actionButton(`${path(app)}/reactivate`, 'Reactivate', csrf)
      } <a class="button danger" href="${path(app)}/delete">Delete…</a>`;
  return html`<dl class="pairs"><dt>Status</dt><dd>${status(app.status)}</dd><dt>Description</dt><dd>${app.description ?? html`<span class="muted">none</span>`}</dd>
<dt>Grant types</dt><dd>${codes(app.grantTypes)}</dd><dt>Redirect URIs</dt><dd>${codes(app.redirectUris)}</dd>
<dt>Refresh tokens</dt><dd>${app.allowRefresh ? 'Issued (14 days)' : 'Not issued'}</dd><dt>Last used</dt><dd>${when(app.lastUsedDateUtc)}</dd>
<dt>Connected users</dt><dd>${app.connectedUsers} <span class="hint">people who signed in through it and have not disconnected it</span></dd>
<dt>Registered</dt><dd>${when(app.createdDateUtc)}</dd></dl>
<p>${auditLink('ClientApplication', app.id)}</p>
<h2>Allowed scopes</h2>${scopeList.length ? html`<ul>${scopeList}</ul>` : html`<p class="muted">None: its tokens allow nothing.</p>`}
${integration(app, baseUrl, undefined, caFile)}
<section aria-labelledby="actions"><h2 id="actions">Actions</h2>
<p id="rotate-note" class="hint">Rotating shows a new secret once; the current secret stops working at once.</p>
${actionButton(`${path(app)}/rotate-secret`, 'Rotate the secret', csrf, { describedBy: 'rotate-note' })} ${own}</section>
<p><a href="${BASE}/clients">All client applications</a></p>`;
}

export function secretPage(
  app: App,
  secret: string,
  baseUrl: string,
  kind: 'created' | 'rotated',
  caFile?: string,
): Html {
  return html`<div class="warning" role="alert"><p><strong>Copy the client secret now: it is shown only this once.</strong>
The service keeps only a hash of it${kind === 'rotated' ? ', and the previous secret has stopped working' : ''}. If it is lost, rotate the secret to get a new one.</p></div>
${secretField('client-id', 'Client ID', app.clientId)}${secretField('client-secret', 'Client secret', secret)}
${integration(app, baseUrl, secret, caFile)}
<p><a class="button" href="${path(app)}">I have stored the secret: go to ${app.name}</a></p>`;
}

export function confirmDeletePage(app: App, csrf: string): Html {
  return html`<div class="warning"><p>Deleting <strong>${app.name}</strong> revokes every token, grant and consent it holds at once
and cannot be undone: anything using the client ID <code>${app.clientId}</code> stops working.</p></div>
<p class="actions">${actionButton(`${path(app)}/delete`, `Delete ${app.name}`, csrf, { cls: 'danger' })} <a href="${path(app)}">Cancel</a></p>`;
}
