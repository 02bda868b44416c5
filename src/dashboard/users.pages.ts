// The users page: search by e-mail or name, each account's roles, status and verifications, suspend / reactivate.
import { auditLink } from './audit.pages.js';
import { actionButton, pager } from './forms.js';
import { type Html, href, html, when } from './html.js';
import { BASE } from './layout.js';

export interface Account {
  id: string;
  username: string;
  roles: string[];
  status: 'Active' | 'Suspended';
  isVerifiedBorrower: boolean;
  lastSignInDateUtc: string | null;
  createdDateUtc: string;
  profile: { displayName: string; firstName: string; lastName: string };
  verifications: { kind: string; status: string }[];
}

export interface UserQuery {
  q: string;
  status: string;
}

function searchForm(f: UserQuery): Html {
  const opt = (v: string, label: string) =>
    html`<option value="${v}"${v === f.status ? html` selected` : ''}>${label}</option>`;
  return html`<form class="filters" method="get" action="${BASE}/users" role="search">
<p><label for="q">E-mail address or name</label> <input id="q" name="q" type="search" value="${f.q}" autocomplete="off"></p>
<p><label for="q-status">Status</label> <select id="q-status" name="status">${opt('', 'Any')}${opt('Active', 'Active')}${opt('Suspended', 'Suspended')}</select></p>
<p><button type="submit">Search</button></p></form>`;
}

function row(a: Account, csrf: string, back: string): Html {
  const checks = a.verifications.map(
    (v) => html`<li><span class="badge badge-${v.status.toLowerCase()}">${v.kind}: ${v.status}</span></li>`,
  );
  const action =
    a.status === 'Active'
      ? actionButton(`${BASE}/users/${a.id}/suspend`, 'Suspend', csrf, { cls: 'danger', fields: { back } })
      : actionButton(`${BASE}/users/${a.id}/reactivate`, 'Reactivate', csrf, { fields: { back } });
  return html`<tr><th scope="row">${a.profile.firstName} ${a.profile.lastName}<br><span class="mono">${a.username}</span></th>
<td>${a.roles.join(', ')}</td><td><span class="badge badge-${a.status.toLowerCase()}">${a.status}</span></td>
<td>${a.isVerifiedBorrower ? 'Verified borrower' : 'Not a verified borrower'}<ul class="badges">${checks}</ul>
<a href="${href(`${BASE}/verifications`, { status: 'any', subjectId: a.id })}">Verifications of ${a.profile.firstName}</a>
<br>${auditLink('UserAccount', a.id)}</td>
<td>${when(a.lastSignInDateUtc)}</td><td>${action}</td></tr>`;
}

export function usersPage(
  page: { total: number; limit: number; offset: number; nodes: Account[] },
  f: UserQuery,
  csrf: string,
  back: string,
): Html {
  return html`${searchForm(f)}
<table><caption>${page.total} account${page.total === 1 ? '' : 's'}${f.q ? html` matching “${f.q}”` : ''}</caption>
<thead><tr><th scope="col">Person</th><th scope="col">Roles</th><th scope="col">Status</th><th scope="col">Verification</th><th scope="col">Last sign-in</th><th scope="col">Action</th></tr></thead>
<tbody>${page.nodes.map((a) => row(a, csrf, back))}</tbody></table>
${pager(`${BASE}/users`, { q: f.q, status: f.status }, page)}`;
}
