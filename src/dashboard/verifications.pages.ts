// The verification queue: each record with its subject and evidence, and the verify / reject form.
import { verificationKinds, verificationStatuses } from '../verifications/verification.entity.js';
import { auditLink } from './audit.pages.js';
import type { Problem } from './errors.js';
import { csrfField, fieldError, pager } from './forms.js';
import { type Html, href, html, when } from './html.js';
import { BASE } from './layout.js';

export interface Verification {
  id: string;
  subjectType: 'UserAccount' | 'Car';
  subjectId: string;
  kind: string;
  status: string;
  evidence: Record<string, unknown> | null;
  expiresDateUtc: string | null;
  decidedDateUtc: string | null;
  reason: string | null;
  lastModifiedDateUtc: string;
}

/** What the page shows of a subject (a user's name and e-mail, a car's make, model and plate), by id. */
export type Subjects = Record<string, { label: string; username?: string }>;

export interface Filter {
  status: string;
  kind: string;
  subjectId: string;
}

/** `expiresDateUtc` reads "Expires", `emailAddress` "Email address". */
const labelOf = (key: string): string => {
  const words = key
    .replace(/DateUtc$/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** An ISO timestamp in evidence (`ExpiresDateUtc`, `IssuedDateUtc`), shown as every other date of the dashboard. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

function evidenceValue(v: unknown): Html | string {
  if (typeof v === 'string' && ISO_TIME.test(v)) return when(v);
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

function evidence(e: Record<string, unknown> | null): Html {
  if (!e || Object.keys(e).length === 0) return html`<p class="muted">No evidence submitted.</p>`;
  const rows = Object.entries(e).map(
    ([k, v]) => html`<dt>${labelOf(k)}</dt><dd class="mono">${evidenceValue(v)}</dd>`,
  );
  return html`<dl class="pairs evidence">${rows}</dl>`;
}

function filterForm(f: Filter): Html {
  const opt = (v: string, current: string, label = v) =>
    html`<option value="${v}"${v === current ? html` selected` : ''}>${label}</option>`;
  return html`<form class="filters" method="get" action="${BASE}/verifications" role="search">
<p><label for="q-status">Status</label> <select id="q-status" name="status">${opt('', f.status, 'Any')}${verificationStatuses.map((s) => opt(s, f.status))}</select></p>
<p><label for="q-kind">Kind</label> <select id="q-kind" name="kind">${opt('', f.kind, 'Any')}${verificationKinds.map((k) => opt(k, f.kind))}</select></p>
${f.subjectId ? html`<input type="hidden" name="subjectId" value="${f.subjectId}">` : ''}<p><button type="submit" class="secondary">Show</button></p></form>`;
}

function item(v: Verification, subjects: Subjects, csrf: string, back: string, problem?: Problem): Html {
  const subject = subjects[v.subjectId];
  // A person's card links to the users list filtered on them, a car's to the car's own page.
  const subjectLink =
    v.subjectType === 'Car'
      ? `${BASE}/cars/${encodeURIComponent(v.subjectId)}`
      : subject?.username
        ? href(`${BASE}/users`, { q: subject.username })
        : undefined;
  const who = subject?.label ?? v.subjectId;
  const reason = fieldError(problem, `reason-${v.id}`);
  const decide =
    v.status === 'Pending'
      ? html`<form method="post" action="${BASE}/verifications/${v.id}/decide">${csrfField(csrf)}<input type="hidden" name="back" value="${back}">
<p><label for="f-reason-${v.id}">Reason</label> <span class="hint" id="h-reason-${v.id}">Required to reject: the person reads it to know what to fix. Up to 1000 characters.</span>
<textarea id="f-reason-${v.id}" name="reason" maxlength="1000" rows="2" aria-describedby="h-reason-${v.id}"${reason.attrs}></textarea>${reason.message}</p>
<p class="actions"><button type="submit" name="decision" value="verify">Verify</button> <button type="submit" name="decision" value="reject" class="danger">Reject</button></p></form>`
      : html`<p>Decided ${when(v.decidedDateUtc)}${v.reason ? html`: ${v.reason}` : ''}</p>`;
  return html`<li class="card" aria-labelledby="v-${v.id}"><h2 id="v-${v.id}">${v.kind} of ${
    subjectLink ? html`<a href="${subjectLink}">${who}</a>` : who
  } <span class="badge badge-${v.status.toLowerCase()}">${v.status}</span></h2>
<p class="muted">${v.subjectType === 'Car' ? 'Car' : 'User account'} <span class="mono">${v.subjectId}</span>; last changed ${when(v.lastModifiedDateUtc)}${
    v.expiresDateUtc ? html`; evidence valid until ${when(v.expiresDateUtc)}` : ''
  }; ${auditLink('Verification', v.id)}</p>${evidence(v.evidence)}${decide}</li>`;
}

export function queuePage(
  page: { total: number; limit: number; offset: number; nodes: Verification[] },
  f: Filter,
  subjects: Subjects,
  csrf: string,
  back: string,
  problem?: Problem,
): Html {
  const q = { status: f.status || 'any', kind: f.kind, subjectId: f.subjectId };
  return html`${filterForm(f)}<p role="status">${page.total} verification${page.total === 1 ? '' : 's'}${f.status ? html` ${f.status}` : ''}${f.status === 'Pending' ? ', oldest first' : ''}.</p>
${page.nodes.length ? html`<ul class="plain">${page.nodes.map((v) => item(v, subjects, csrf, back, problem))}</ul>` : html`<p class="muted">Nothing to review.</p>`}
${pager(`${BASE}/verifications`, q, page)}`;
}
