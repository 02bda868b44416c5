// Reading bookings (CONTRACT §6 "Who sees which bookings"): the caller's bookings, a car's bookings, one booking.

import { isSelf } from '../access/actor.js';
import { carById } from '../cars/car.loaders.js';
import { plainRows } from '../db/rows.js';
import { searchRows, whereEquals } from '../db/search.js';
import type { Context } from '../graphql/context.js';
import { notFound } from '../shared/errors.js';
import { checkRange, type Page, type PageArgs, pageRequest } from '../shared/pagination.js';
import { bookingById } from './booking.loaders.js';
import { minutes, shift } from './booking.policy.js';
import { canSeeBooking, seesAllBookings } from './booking.rules.js';
import { CarBooking } from './car-booking.entity.js';

const columns = {
  startDateUtc: 'start_date_utc',
  endDateUtc: 'end_date_utc',
  createdDateUtc: 'created_date_utc',
  lastModifiedDateUtc: 'last_modified_date_utc',
  reference: 'reference',
  carId: 'car_id',
  borrowerId: 'borrower_id',
  ownerId: 'owner_id',
  state: 'state',
  message: 'message',
  requestedDateUtc: 'requested_date_utc',
  approvedDateUtc: 'approved_date_utc',
  declinedDateUtc: 'declined_date_utc',
  expiredDateUtc: 'expired_date_utc',
  cancelledDateUtc: 'cancelled_date_utc',
  usedDateUtc: 'used_date_utc',
  returnedDateUtc: 'returned_date_utc',
  completedDateUtc: 'completed_date_utc',
  cancellationReason: 'cancellation_reason',
  isNoShow: 'is_no_show',
  estimatedCost: `round(hourly_rate_amount * extract(epoch from end_date_utc - start_date_utc) / 3600, 2)`,
} as const;

const DAY = minutes(24 * 60);

export interface BookingFilter extends PageArgs {
  states?: readonly string[] | null;
  fromUtc?: Date | null;
  toUtc?: Date | null;
}

export interface BookingPage extends Page<CarBooking> {
  fromUtc: Date | null;
  toUtc: Date | null;
}

/**
 * The window a booking's period must overlap. Left out: [now − 30 days, now + 90 days). When only one end is
 * given and the other's default would fall on its wrong side, that side is left open.
 */
function window(ctx: Context, args: BookingFilter): { from: Date | null; to: Date | null } {
  const now = ctx.clock.now();
  checkRange('fromUtc', args.fromUtc, 'toUtc', args.toUtc);
  const defFrom = shift(now, -30 * DAY);
  const defTo = shift(now, 90 * DAY);
  const from = args.fromUtc ?? (args.toUtc && args.toUtc <= defFrom ? null : defFrom);
  const to = args.toUtc ?? (args.fromUtc && args.fromUtc >= defTo ? null : defTo);
  return { from, to };
}

async function search(
  ctx: Context,
  args: BookingFilter,
  where: string[],
  params: unknown[],
): Promise<BookingPage> {
  const page = pageRequest(args, { fields: Object.keys(columns), defaultSort: 'startDateUtc' });
  const { from, to } = window(ctx, args);
  if (args.states && args.states.length > 0) {
    where.push(`state in (${args.states.map(() => '?').join(', ')})`);
    params.push(...args.states);
  }
  if (to) {
    where.push('start_date_utc < ?');
    params.push(to);
  }
  if (from) {
    where.push('end_date_utc > ?');
    params.push(from);
  }
  const { rows, total } = await searchRows<Record<string, unknown>>(
    ctx.em,
    { table: 'car_booking', where, params, columns },
    page,
  );
  return { ...page, total, fromUtc: from, toUtc: to, nodes: plainRows(ctx.em, CarBooking, rows) };
}

export interface MyBookingsFilter extends BookingFilter {
  role?: 'borrower' | 'owner' | null;
  reference?: string | null;
  carId?: string | null;
  borrowerId?: string | null;
}

/** The caller's bookings as borrower and as owner (`role` narrows); network-wide readers see all. */
export function searchBookings(ctx: Context, args: MyBookingsFilter): Promise<BookingPage> {
  const where: string[] = [];
  const params: unknown[] = [];
  const me = ctx.actor.id;
  if (args.role === 'borrower' || args.role === 'owner') {
    where.push(args.role === 'borrower' ? 'borrower_id = ?' : 'owner_id = ?');
    params.push(me);
  } else if (!seesAllBookings(ctx.actor)) {
    where.push('(borrower_id = ? or owner_id = ?)');
    params.push(me, me);
  }
  if (args.reference?.trim()) {
    where.push('reference = ?');
    params.push(args.reference.trim().toUpperCase());
  }
  whereEquals(where, params, args, { carId: 'car_id', borrowerId: 'borrower_id' });
  return search(ctx, args, where, params);
}

/** A car's bookings: all of them for its owner and network-wide readers, a borrower's own for anyone else. */
export async function searchCarBookings(
  ctx: Context,
  carId: string,
  args: BookingFilter,
): Promise<BookingPage> {
  const car = await carById(ctx).load(carId);
  if (!car) throw notFound('Car');
  const where = ['car_id = ?'];
  const params: unknown[] = [carId];
  if (!seesAllBookings(ctx.actor) && !isSelf(ctx.actor, car.ownerId)) {
    where.push('borrower_id = ?');
    params.push(ctx.actor.id);
  }
  return search(ctx, args, where, params);
}

export async function getBooking(ctx: Context, id: string): Promise<CarBooking> {
  const b = await bookingById(ctx).load(id);
  if (!b || !canSeeBooking(ctx.actor, b)) throw notFound('Booking');
  return b;
}
