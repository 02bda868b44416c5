// The list of car shares (filter by status, search by name or host), the form of a new one, and the page that shows
// its first operator's generated password once.
import type { Problem } from '../dashboard/errors.js';
import { csrfField, fieldError, pager, secretField } from '../dashboard/forms.js';
import { type Html, href, html } from '../dashboard/html.js';
import type { CarShare, Page } from './api.js';

const BASE = '/platform';

export const carSharePath = (id: string): string => `${BASE}/carshares/${id}`;

export interface ListQuery {
  q: string;
  status: '' | 'Active' | 'Suspended';
}

function filters(f: ListQuery): Html {
  const opt = (v: string, label: string) =>
    html`<option value="${v}"${v === f.status ? html` selected` : ''}>${label}</option>`;
  return html`<form class="filters" method="get" action="${BASE}" role="search">
<p><label for="f-q">Name or host</label> <input id="f-q" name="q" value="${f.q}" autocomplete="off" size="30"></p>
<p><label for="f-status">Status</label> <select id="f-status" name="status">${opt('', 'Any')}${opt('Active', 'Active')}${opt('Suspended', 'Suspended')}</select></p>
<p><button type="submit">Search</button></p></form>`;
}

export function listPage(page: Page<CarShare>, f: ListQuery): Html {
  const rows = page.nodes.map(
    (
      c,
    ) => html`<tr><th scope="row"><a href="${carSharePath(c.id)}">${c.name}</a>${c.isDefault ? html` <span class="muted">(default)</span>` : ''}</th>
<td><code>${c.host}</code></td><td><span class="status status-${c.status.toLowerCase()}">${c.status}</span></td>
<td class="num">${c.usage.userAccounts}</td><td class="num">${c.usage.cars}</td><td class="num">${c.usage.bookings}</td></tr>`,
  );
  const table = page.nodes.length
    ? html`<table><caption class="visually-hidden">Car shares</caption><thead><tr><th scope="col">Name</th><th scope="col">Host</th><th scope="col">Status</th>
<th scope="col" class="num">User accounts</th><th scope="col" class="num">Cars</th><th scope="col" class="num">Bookings</th></tr></thead><tbody>${rows}</tbody></table>`
    : html`<p class="empty">No car share matches.</p>`;
  const query = { q: f.q || undefined, status: f.status || undefined };
  return html`${filters(f)}${table}${pager(BASE, query, page)}
<p><a class="button" href="${BASE}/new">New car share</a></p>`;
}

export interface NewCarShare {
  baseUrl: string;
  name: string;
  username: string;
}

/** A labelled text field that points at its own error. */
export function field(
  name: string,
  label: string,
  value: string,
  problem: Problem | undefined,
  opts: { type?: string; hint?: string; required?: boolean; autocomplete?: string } = {},
): Html {
  const err = fieldError(problem, name);
  return html`<p><label for="f-${name}">${label}</label>${opts.hint ? html` <span class="hint">${opts.hint}</span>` : ''}
${err.message}<input id="f-${name}" name="${name}" type="${opts.type ?? 'text'}" value="${value}" size="50" autocomplete="${opts.autocomplete ?? 'off'}"${opts.required ? html` required` : ''}${err.attrs}></p>`;
}

export function newPage(v: NewCarShare, csrf: string, problem?: Problem): Html {
  return html`<form class="stack" method="post" action="${BASE}/new">${csrfField(csrf)}
${field('baseUrl', 'BaseUrl', v.baseUrl, problem, { hint: 'https, a host of its own, e.g. https://rides.example.com', required: true })}
${field('name', 'Name', v.name, problem, { hint: '3–100 characters', required: true })}
<fieldset><legend>First operator</legend>
${field('operator-username', 'Operator’s e-mail address', v.username, problem, { type: 'email', required: true })}
${field('operator-password', 'Operator’s password', '', problem, { type: 'password', hint: 'optional: leave empty to have one generated, shown once', autocomplete: 'new-password' })}
</fieldset><p><button type="submit">Create the car share</button></p></form>`;
}

/** The answer to a creation or an added operator: a generated password is shown here, once, and never again. */
export function passwordOnce(username: string, password: string | null | undefined): Html {
  if (!password)
    return html`<p>The operator <strong>${username}</strong> signs in with the password you chose.</p>`;
  return html`<p>The operator <strong>${username}</strong> signs in with this generated password. It is shown only
now: copy it and hand it over safely; nobody can read it again (add another operator if it is lost).</p>
${secretField('generated-password', 'Generated password', password)}`;
}

export function createdPage(
  c: { id: string; name: string; baseUrl: string },
  username: string,
  password: string | null,
): Html {
  return html`<p>The car share <strong>${c.name}</strong> answers at <code>${c.baseUrl}</code> on every instance.</p>
${passwordOnce(username, password)}
<p><a class="button" href="${carSharePath(c.id)}">Go to the car share</a> <a href="${BASE}">Back to the car shares</a></p>`;
}

/** A link back to the list with the search it came from. */
export const listLink = (f: ListQuery): string => href(BASE, { q: f.q, status: f.status });
