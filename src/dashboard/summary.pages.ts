// The summary page: bookings requested, used and completed per period in a table, the state of the car share
// (bookings by state as a chart, accounts and cars to review) beside it.
import { barChart } from './chart.js';
import { type Html, html, when } from './html.js';
import { BASE } from './layout.js';

interface Summary {
  fromUtc: string;
  toUtc: string;
  bookingsInRange: { created: number; used: number; completed: number };
  bookingsByState: Record<
    'pending' | 'approved' | 'declined' | 'expired' | 'cancelled' | 'inUse' | 'returned' | 'completed',
    number
  >;
  users: { active: number; unverified: number };
  cars: { listed: number; unverified: number };
}

export interface Periods {
  today: Summary;
  week: Summary;
  month: Summary;
}

const states = [
  ['pending', 'Pending'],
  ['approved', 'Approved'],
  ['inUse', 'In use'],
  ['returned', 'Returned'],
  ['completed', 'Completed'],
  ['declined', 'Declined'],
  ['cancelled', 'Cancelled'],
  ['expired', 'Expired'],
] as const;

export function summaryPage(p: Periods): Html {
  const periods = [
    ['Today', p.today],
    ['This week', p.week],
    ['This month', p.month],
  ] as const;
  const row = (label: string, key: keyof Summary['bookingsInRange']) =>
    html`<tr><th scope="row">${label}</th>${periods.map(([, s]) => html`<td>${s.bookingsInRange[key]}</td>`)}</tr>`;
  const now = p.today;
  return html`<section aria-labelledby="activity"><h2 id="activity">Bookings</h2>
<table class="numbers"><caption>Bookings by period (UTC), up to ${when(now.toUtc)}</caption>
<thead><tr><td></td>${periods.map(([label, s]) => html`<th scope="col">${label}<br><span class="muted">since ${when(s.fromUtc)}</span></th>`)}</tr></thead>
<tbody>${row('Requested', 'created')}${row('Picked up', 'used')}${row('Completed', 'completed')}</tbody></table></section>
<section aria-labelledby="now"><h2 id="now">The car share now</h2>
${barChart(
  'states',
  'Bookings by state',
  states.map(([k, label]) => ({ label, value: now.bookingsByState[k] })),
)}
<dl class="pairs"><dt>Active accounts</dt><dd>${now.users.active}</dd>
<dt>Accounts not yet verified borrowers</dt><dd>${now.users.unverified} (<a href="${BASE}/verifications">review the queue</a>)</dd>
<dt>Listed cars</dt><dd>${now.cars.listed}</dd><dt>Cars not verified</dt><dd>${now.cars.unverified}</dd></dl></section>`;
}
