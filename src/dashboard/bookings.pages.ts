// The bookings pages: search by state, period, reference, car and borrower; one booking with its states and their
// dates, and cancelling it as an operator with a reason.

import { bookingStates } from '../bookings/car-booking.entity.js';
import { auditLink } from './audit.pages.js';
import { badge, carPath, fullName, type Person } from './cars.pages.js';
import type { Problem } from './errors.js';
import { csrfField, fieldError, pager } from './forms.js';
import { type Html, href, html, when } from './html.js';
import { BASE } from './layout.js';
import { shortId, shortIdLink } from './short-id.js';

/** Each state with the date the booking entered it, in the order a booking lives them. */
const stateDates = [
  ['Requested (Pending)', 'requestedDateUtc'],
  ['Approved', 'approvedDateUtc'],
  ['Declined', 'declinedDateUtc'],
  ['Expired', 'expiredDateUtc'],
  ['Cancelled', 'cancelledDateUtc'],
  ['In use', 'usedDateUtc'],
  ['Returned', 'returnedDateUtc'],
  ['Completed', 'completedDateUtc'],
] as const;

export interface BookingRow {
  id: string;
  reference: string;
  state: string;
  carId: string;
  borrowerId: string;
  startDateUtc: string;
  endDateUtc: string;
  requestedDateUtc: string;
  car: { make: string; model: string } | null;
  borrower: Person | null;
}

export interface BookingDetail extends BookingRow {
  ownerId: string;
  message: string | null;
  cancellationReason: string | null;
  isNoShow: boolean;
  estimatedCost: { amount: string; currency: string };
  approvedDateUtc: string | null;
  declinedDateUtc: string | null;
  expiredDateUtc: string | null;
  cancelledDateUtc: string | null;
  usedDateUtc: string | null;
  returnedDateUtc: string | null;
  completedDateUtc: string | null;
}

export interface BookingQuery {
  state: string;
  reference: string;
  carId: string;
  borrowerId: string;
  from: string;
  to: string;
}

export const bookingPath = (id: string) => `${BASE}/bookings/${id}`;

function searchForm(f: BookingQuery): Html {
  const opt = (v: string, label: string) =>
    html`<option value="${v}"${v === f.state ? html` selected` : ''}>${label}</option>`;
  return html`<form class="filters" method="get" action="${BASE}/bookings" role="search">
<p><label for="f-state">State</label> <select id="f-state" name="state">${opt('', 'Any')}${bookingStates.map((s) => opt(s, s))}</select></p>
<p><label for="f-from">Period from (UTC)</label> <input id="f-from" name="from" type="date" value="${f.from}" size="12"></p>
<p><label for="f-to">Period until (UTC)</label> <input id="f-to" name="to" type="date" value="${f.to}" size="12"></p>
<p><label for="f-reference">Reference</label> <input id="f-reference" name="reference" value="${f.reference}" autocomplete="off" size="10"></p>
<p><label for="f-carId">Car id</label> <input id="f-carId" name="carId" value="${f.carId}" autocomplete="off" size="38"></p>
<p><label for="f-borrowerId">Borrower id</label> <input id="f-borrowerId" name="borrowerId" value="${f.borrowerId}" autocomplete="off" size="38"></p>
<p><button type="submit">Search</button></p></form>`;
}

function row(b: BookingRow): Html {
  const car = b.car ? `${b.car.make} ${b.car.model}` : 'Deleted car';
  return html`<tr><th scope="row"><a href="${bookingPath(b.id)}"><code>${b.reference}</code></a></th><td>${badge(b.state)}</td>
<td>${b.car ? html`<a href="${carPath(b.carId)}">${car}</a>` : car}</td>
<td>${fullName(b.borrower)}<br>${shortIdLink(b.borrowerId, href(`${BASE}/bookings`, { borrowerId: b.borrowerId }), 'borrower id')}</td>
<td>${when(b.startDateUtc)}<br>${when(b.endDateUtc)}</td><td>${when(b.requestedDateUtc)}</td></tr>`;
}

export function bookingsPage(
  page: { total: number; limit: number; offset: number; nodes: BookingRow[] },
  f: BookingQuery,
): Html {
  const period = f.from || f.to ? 'in the period searched' : 'from 30 days ago to 90 days ahead';
  return html`${searchForm(f)}
<table class="fit"><caption>${page.total} booking${page.total === 1 ? '' : 's'} ${period}</caption>
<thead><tr><th scope="col">Reference</th><th scope="col">State</th><th scope="col">Car</th><th scope="col">Borrower</th><th scope="col">Period</th><th scope="col">Requested</th></tr></thead>
<tbody>${page.nodes.length ? page.nodes.map(row) : html`<tr><td colspan="6">No booking matches.</td></tr>`}</tbody></table>
${pager(`${BASE}/bookings`, { ...f }, page)}`;
}

/** Operators cancel only an Approved booking (CONTRACT §6), and always say why. */
function cancelForm(b: BookingDetail, csrf: string, reason: string, problem?: Problem): Html {
  if (b.state !== 'Approved') return html``;
  const err = fieldError(problem, 'reason');
  return html`<form method="post" action="${bookingPath(b.id)}/cancel" class="card">${csrfField(csrf)}
<h2>Cancel this booking</h2>
<p><label for="f-reason">Reason</label> <span class="hint" id="h-reason">Required; the borrower and the owner read it.</span>
<textarea id="f-reason" name="reason" rows="2" maxlength="1000" aria-describedby="h-reason"${err.attrs}>${reason}</textarea>${err.message}</p>
<p><button type="submit" class="danger">Cancel the booking</button></p></form>`;
}

export function bookingPage(b: BookingDetail, csrf: string, reason = '', problem?: Problem): Html {
  const car = b.car ? `${b.car.make} ${b.car.model}` : 'Deleted car';
  const dates = stateDates
    .filter(([, key]) => b[key])
    .map(([label, key]) => html`<tr><th scope="row">${label}</th><td>${when(b[key])}</td></tr>`);
  return html`<dl class="pairs"><dt>State</dt><dd>${badge(b.state)}${b.isNoShow ? ' (no-show)' : ''}</dd>
<dt>Reference</dt><dd><code>${b.reference}</code> ${shortId(b.id, 'booking id')}</dd>
<dt>Car</dt><dd>${b.car ? html`<a href="${carPath(b.carId)}">${car}</a>` : car}</dd>
<dt>Borrower</dt><dd>${fullName(b.borrower)} ${shortIdLink(b.borrowerId, href(`${BASE}/bookings`, { borrowerId: b.borrowerId }), 'borrower id')}</dd>
<dt>Owner</dt><dd>${shortIdLink(b.ownerId, href(`${BASE}/cars`, { ownerId: b.ownerId }), 'owner id')}</dd>
<dt>Period</dt><dd>${when(b.startDateUtc)} to ${when(b.endDateUtc)}</dd>
<dt>Estimated cost</dt><dd>${b.estimatedCost.amount} ${b.estimatedCost.currency}</dd>
${b.message ? html`<dt>Message to the owner</dt><dd>${b.message}</dd>` : ''}
${b.cancellationReason ? html`<dt>Cancellation reason</dt><dd>${b.cancellationReason}</dd>` : ''}</dl>
<p>${auditLink('CarBooking', b.id)}</p>
<table class="fit"><caption>States and their dates</caption><thead><tr><th scope="col">State</th><th scope="col">Since</th></tr></thead>
<tbody>${dates}</tbody></table>
${cancelForm(b, csrf, reason, problem)}`;
}
