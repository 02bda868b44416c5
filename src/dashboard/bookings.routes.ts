// Bookings: search by state, period, reference, car and borrower; one booking's page; cancel as an operator.
import type Router from '@koa/router';
import type Koa from 'koa';
import { bookingStates } from '../bookings/car-booking.entity.js';
import {
  type BookingDetail,
  type BookingQuery,
  type BookingRow,
  bookingPage,
  bookingPath,
  bookingsPage,
} from './bookings.pages.js';
import { describeError } from './errors.js';
import { html } from './html.js';
import { type Kit, type Op, text } from './kit.js';
import { BASE, noticeOf } from './layout.js';
import { dayStart, malformedIds, noResults, offsetOf, oneOf, param } from './query.js';

const ROW = `id reference state carId borrowerId startDateUtc endDateUtc requestedDateUtc
  car { make model } borrower { firstName lastName }`;
const SEARCH = `query($states: [CarBookingState!], $reference: String, $carId: UUID, $borrowerId: UUID,
  $from: DateTime, $to: DateTime, $offset: Int) {
  bookings(states: $states, reference: $reference, carId: $carId, borrowerId: $borrowerId, fromUtc: $from,
    toUtc: $to, sort: "-startDateUtc", limit: 25, offset: $offset) { total limit offset nodes { ${ROW} } } }`;
const ONE = `query($id: UUID!) { booking(id: $id) { ${ROW} ownerId message cancellationReason isNoShow
  estimatedCost { amount currency } approvedDateUtc declinedDateUtc expiredDateUtc cancelledDateUtc usedDateUtc
  returnedDateUtc completedDateUtc } }`;
const CANCEL = `mutation($id: UUID!, $reason: String) { cancelBooking(id: $id, input: { reason: $reason }) { id state } }`;

const labels = {
  reason: 'Reason',
  carId: 'Car id',
  borrowerId: 'Borrower id',
  from: 'Period from',
  to: 'Period until',
  reference: 'Reference',
};
const idOf = (ctx: Koa.Context) => String(ctx.params.id);
const backToBookings = html`<p><a href="${BASE}/bookings">Back to the bookings</a></p>`;

async function load(ctx: Koa.Context, op: Op): Promise<BookingDetail | undefined> {
  const r = await op.api.run<{ booking: BookingDetail }>(ONE, { id: idOf(ctx) });
  if (r.ok) return r.data.booking;
  op.page(
    { title: 'Booking', section: 'bookings', body: backToBookings, problem: describeError(r.error, labels) },
    r.error.code === 'NotFound' ? 404 : 200,
  );
  return undefined;
}

export function serveBookingPages(router: Router, kit: Kit): void {
  router.get(
    '/bookings',
    kit.operator(async (ctx, op) => {
      const f: BookingQuery = {
        state: oneOf(param(ctx, 'state'), bookingStates),
        reference: param(ctx, 'reference'),
        carId: param(ctx, 'carId'),
        borrowerId: param(ctx, 'borrowerId'),
        from: param(ctx, 'from'),
        to: param(ctx, 'to'),
      };
      const offset = offsetOf(ctx.query);
      const malformed = malformedIds({ carId: f.carId, borrowerId: f.borrowerId }, labels);
      if (malformed)
        return op.page({
          title: 'Bookings',
          section: 'bookings',
          body: bookingsPage(noResults(), f),
          problem: malformed,
        });
      const r = await op.api.run<{
        bookings: { total: number; limit: number; offset: number; nodes: BookingRow[] };
      }>(SEARCH, {
        states: f.state ? [f.state] : null,
        reference: f.reference || null,
        carId: f.carId || null,
        borrowerId: f.borrowerId || null,
        from: dayStart(f.from),
        to: dayStart(f.to),
        offset,
      });
      op.page({
        title: 'Bookings',
        section: 'bookings',
        body: bookingsPage(r.ok ? r.data.bookings : noResults(), f),
        problem: r.ok ? undefined : describeError(r.error, labels),
      });
    }),
  );

  router.get(
    '/bookings/:id',
    kit.operator(async (ctx, op) => {
      const b = await load(ctx, op);
      if (b)
        op.page({
          title: `Booking ${b.reference}`,
          section: 'bookings',
          notice: noticeOf(ctx.query.notice),
          body: bookingPage(b, op.user.csrf),
        });
    }),
  );

  router.post(
    '/bookings/:id/cancel',
    kit.operator(async (ctx, op) => {
      const reason = text(op.form, 'reason');
      const r = await op.api.run(CANCEL, { id: idOf(ctx), reason: reason || null });
      if (r.ok) {
        ctx.status = 303;
        return ctx.redirect(`${bookingPath(idOf(ctx))}?notice=booking-cancelled`);
      }
      const b = await load(ctx, op);
      if (b)
        op.page({
          title: `Booking ${b.reference}`,
          section: 'bookings',
          body: bookingPage(b, op.user.csrf, reason, describeError(r.error, labels)),
          problem: describeError(r.error, labels),
        });
    }),
  );
}
