// The audit trail page: filters (subject, actor, action, period) and the entries, newest first; and the link
// every subject's page shows to its own entries.

import { type AuditActorType, auditSubjectTypes } from '../audit/audit-entry.entity.js';
import { pager } from './forms.js';
import { type Html, href, html, when } from './html.js';
import { BASE } from './layout.js';
import { shortId, shortIdLink } from './short-id.js';

export interface Entry {
  id: string;
  occurredDateUtc: string;
  actorId: string | null;
  actorType: string;
  action: string;
  subjectType: string;
  subjectId: string;
  requestId: string | null;
}

export interface AuditQuery {
  subjectType: string;
  subjectId: string;
  actorId: string;
  action: string;
  from: string;
  to: string;
}

/** The link from a subject's page to the entries about it. */
export const auditLink = (subjectType: string, subjectId: string): Html =>
  html`<a href="${href(`${BASE}/audit`, { subjectType, subjectId })}">Audit trail of this ${label(subjectType)}</a>`;

function label(subjectType: string): string {
  const words = {
    UserAccount: 'account',
    Car: 'car',
    CarBooking: 'booking',
    Verification: 'verification',
    ClientApplication: 'client application',
    WebhookSubscription: 'webhook subscription',
  } as Record<string, string>;
  return words[subjectType] ?? 'subject';
}

/** Where a subject's own page is, for those that have one. */
function subjectPath(type: string, id: string): string | undefined {
  if (type === 'Car') return `${BASE}/cars/${id}`;
  if (type === 'CarBooking') return `${BASE}/bookings/${id}`;
  if (type === 'ClientApplication') return `${BASE}/clients/${id}`;
  if (type === 'WebhookSubscription') return `${BASE}/webhooks/${id}`;
  return undefined;
}

function filters(f: AuditQuery): Html {
  const opt = (v: string, text: string) =>
    html`<option value="${v}"${v === f.subjectType ? html` selected` : ''}>${text}</option>`;
  return html`<form class="filters" method="get" action="${BASE}/audit" role="search">
<p><label for="f-subjectType">Subject type</label> <select id="f-subjectType" name="subjectType">${opt('', 'Any')}${auditSubjectTypes.map((t) => opt(t, t))}</select></p>
<p><label for="f-subjectId">Subject id</label> <input id="f-subjectId" name="subjectId" value="${f.subjectId}" autocomplete="off" size="38"></p>
<p><label for="f-actorId">Actor id</label> <input id="f-actorId" name="actorId" value="${f.actorId}" autocomplete="off" size="38"></p>
<p><label for="f-action">Action</label> <input id="f-action" name="action" value="${f.action}" autocomplete="off" size="24"></p>
<p><label for="f-from">From (UTC)</label> <input id="f-from" name="from" type="date" value="${f.from}" size="12"></p>
<p><label for="f-to">Until (UTC, exclusive)</label> <input id="f-to" name="to" type="date" value="${f.to}" size="12"></p>
<p><button type="submit">Filter</button></p></form>`;
}

/** How each actor type reads on the page. */
const actorLabels = {
  UserAccount: 'Operator',
  ClientApplication: 'Client application',
  Cli: 'Command line',
  Platform: 'Platform',
} as const satisfies Record<AuditActorType, string>;

function row(e: Entry): Html {
  const path = subjectPath(e.subjectType, e.subjectId);
  const subject = path ? shortIdLink(e.subjectId, path, 'subject id') : shortId(e.subjectId, 'subject id');
  const actor = actorLabels[e.actorType as AuditActorType] ?? e.actorType;
  // The command line and the platform have no id to filter by.
  const actorId = e.actorId
    ? html`<br>${shortIdLink(e.actorId, href(`${BASE}/audit`, { actorId: e.actorId }), 'actor id')}`
    : '';
  return html`<tr><td>${when(e.occurredDateUtc)}</td>
<td>${actor}${actorId}</td>
<td><code>${e.action}</code></td><td>${e.subjectType}<br>${subject}</td>
<td>${e.requestId ? shortId(e.requestId, 'request id') : html`<span class="muted">none</span>`}</td></tr>`;
}

export function auditPage(
  page: { total: number; limit: number; offset: number; nodes: Entry[] },
  f: AuditQuery,
): Html {
  const query = { ...f };
  return html`${filters(f)}
<table class="fit"><caption>${page.total} entr${page.total === 1 ? 'y' : 'ies'}, newest first</caption>
<thead><tr><th scope="col">When</th><th scope="col">Actor</th><th scope="col">Action</th><th scope="col">Subject</th><th scope="col">Request</th></tr></thead>
<tbody>${page.nodes.length ? page.nodes.map(row) : html`<tr><td colspan="5">No entries match.</td></tr>`}</tbody></table>
${pager(`${BASE}/audit`, query, page)}`;
}
