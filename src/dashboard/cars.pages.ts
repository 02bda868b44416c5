// The cars pages: search by make, owner and status; one car with its verifications, bookings and unavailability,
// and the list / unlist actions.
import { carStatuses } from '../cars/car.entity.js';
import { auditLink } from './audit.pages.js';
import { actionButton, pager } from './forms.js';
import { type Html, href, html, when } from './html.js';
import { BASE } from './layout.js';
import { shortId, shortIdLink } from './short-id.js';

/** A person as operators know them: full name (display names are shortened for other users). */
export interface Person {
  firstName: string;
  lastName: string;
}
export const fullName = (p: Person | null): string => (p ? `${p.firstName} ${p.lastName}` : '');

export interface CarRow {
  id: string;
  ownerId: string;
  make: string;
  model: string;
  year: number;
  status: string;
  isVerified: boolean;
  lockState: string;
  licensePlate: { jurisdiction: string; number: string };
  createdDateUtc: string;
  owner: Person;
}

export interface CarDetail extends CarRow {
  color: string | null;
  seats: number;
  transmission: string;
  hourlyRate: { amount: string; currency: string };
  autoApprove: boolean;
  homeLocation: { address: string };
  lockStateChangedDateUtc: string | null;
  verifications: { id: string; kind: string; status: string; decidedDateUtc: string | null }[];
}

export interface BookingRow {
  id: string;
  reference: string;
  state: string;
  startDateUtc: string;
  endDateUtc: string;
  borrowerId: string;
  borrower: Person | null;
}

export interface Unavailability {
  id: string;
  startDateUtc: string;
  endDateUtc: string;
  reason: string;
  note: string | null;
}

export interface CarQuery {
  make: string;
  ownerId: string;
  status: string;
}

export const badge = (s: string): Html => html`<span class="badge badge-${s.toLowerCase()}">${s}</span>`;
export const carPath = (id: string) => `${BASE}/cars/${id}`;

function searchForm(f: CarQuery): Html {
  const opt = (v: string, label: string) =>
    html`<option value="${v}"${v === f.status ? html` selected` : ''}>${label}</option>`;
  return html`<form class="filters" method="get" action="${BASE}/cars" role="search">
<p><label for="f-make">Make</label> <input id="f-make" name="make" type="search" value="${f.make}" autocomplete="off" size="20"></p>
<p><label for="f-ownerId">Owner (user id)</label> <input id="f-ownerId" name="ownerId" value="${f.ownerId}" autocomplete="off" size="38"></p>
<p><label for="f-status">Status</label> <select id="f-status" name="status">${opt('', 'Any')}${carStatuses.map((s) => opt(s, s))}</select></p>
<p><button type="submit">Search</button></p></form>`;
}

function row(c: CarRow): Html {
  return html`<tr><th scope="row"><a href="${carPath(c.id)}">${c.make} ${c.model} ${c.year}</a></th>
<td><code>${c.licensePlate.jurisdiction} ${c.licensePlate.number}</code></td>
<td>${fullName(c.owner)}<br>${shortIdLink(c.ownerId, href(`${BASE}/cars`, { ownerId: c.ownerId }), 'owner id')}</td>
<td>${badge(c.status)}</td><td>${c.isVerified ? 'Verified' : 'Not verified'}</td><td>${c.lockState}</td>
<td>${when(c.createdDateUtc)}</td></tr>`;
}

export function carsPage(
  page: { total: number; limit: number; offset: number; nodes: CarRow[] },
  f: CarQuery,
): Html {
  return html`${searchForm(f)}
<table class="fit"><caption>${page.total} car${page.total === 1 ? '' : 's'}</caption>
<thead><tr><th scope="col">Car</th><th scope="col">Plate</th><th scope="col">Owner</th><th scope="col">Status</th><th scope="col">Verification</th><th scope="col">Lock</th><th scope="col">Registered</th></tr></thead>
<tbody>${page.nodes.length ? page.nodes.map(row) : html`<tr><td colspan="7">No car matches.</td></tr>`}</tbody></table>
${pager(`${BASE}/cars`, { ...f }, page)}`;
}

function actions(c: CarDetail, csrf: string): Html {
  const list = actionButton(`${carPath(c.id)}/list`, 'List', csrf);
  const unlist = actionButton(`${carPath(c.id)}/unlist`, 'Unlist', csrf, { cls: 'danger' });
  return html`<div class="actions">${c.status === 'Listed' ? unlist : list}</div>`;
}

export function carPage(
  c: CarDetail,
  bookings: { total: number; nodes: BookingRow[] },
  unavailable: { total: number; nodes: Unavailability[] },
  csrf: string,
): Html {
  const checks = c.verifications.map(
    (v) =>
      html`<li>${badge(v.status)} ${v.kind}${v.decidedDateUtc ? html`, decided ${when(v.decidedDateUtc)}` : ''}</li>`,
  );
  const bookingRows = bookings.nodes.map(
    (b) => html`<tr><th scope="row"><a href="${BASE}/bookings/${b.id}"><code>${b.reference}</code></a></th>
<td>${badge(b.state)}</td><td>${when(b.startDateUtc)}</td><td>${when(b.endDateUtc)}</td>
<td>${fullName(b.borrower)} ${shortId(b.borrowerId, 'borrower id')}</td></tr>`,
  );
  const gaps = unavailable.nodes.map(
    (u) =>
      html`<tr><td>${when(u.startDateUtc)}</td><td>${when(u.endDateUtc)}</td><td>${u.reason}</td><td>${u.note ?? ''}</td></tr>`,
  );
  return html`${actions(c, csrf)}
<dl class="pairs"><dt>Status</dt><dd>${badge(c.status)}</dd><dt>Id</dt><dd>${shortId(c.id, 'car id')}</dd>
<dt>Owner</dt><dd>${fullName(c.owner)} ${shortIdLink(c.ownerId, href(`${BASE}/cars`, { ownerId: c.ownerId }), 'owner id')}</dd>
<dt>Plate</dt><dd><code>${c.licensePlate.jurisdiction} ${c.licensePlate.number}</code></dd>
<dt>Details</dt><dd>${c.color ?? ''} ${c.transmission}, ${c.seats} seats</dd>
<dt>Home</dt><dd>${c.homeLocation.address}</dd>
<dt>Hourly rate</dt><dd>${c.hourlyRate.amount} ${c.hourlyRate.currency}${c.autoApprove ? ', approved automatically' : ''}</dd>
<dt>Lock</dt><dd>${c.lockState}${c.lockStateChangedDateUtc ? html` since ${when(c.lockStateChangedDateUtc)}` : ''}</dd></dl>
<p>${auditLink('Car', c.id)}</p>
<h2>Verifications</h2>
<ul class="plain">${checks}</ul>
<p><a href="${href(`${BASE}/verifications`, { status: 'any', subjectId: c.id })}">Review this car’s verifications</a></p>
<h2>Bookings</h2>
<table class="fit"><caption>${bookings.total} booking${bookings.total === 1 ? '' : 's'} from 30 days ago to 90 days ahead</caption>
<thead><tr><th scope="col">Reference</th><th scope="col">State</th><th scope="col">Start</th><th scope="col">End</th><th scope="col">Borrower</th></tr></thead>
<tbody>${bookingRows.length ? bookingRows : html`<tr><td colspan="5">No bookings in this period.</td></tr>`}</tbody></table>
<p><a href="${href(`${BASE}/bookings`, { carId: c.id })}">Search all bookings of this car</a></p>
<h2>Unavailability</h2>
<table class="fit"><caption>${unavailable.total} period${unavailable.total === 1 ? '' : 's'} declared by the owner</caption>
<thead><tr><th scope="col">From</th><th scope="col">Until</th><th scope="col">Reason</th><th scope="col">Note</th></tr></thead>
<tbody>${gaps.length ? gaps : html`<tr><td colspan="4">None.</td></tr>`}</tbody></table>`;
}
