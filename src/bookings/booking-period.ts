// The free-period rule (CONTRACT §6): no Approved/InUse booking and no unavailability of the car overlaps
// [start, end). Checked under the car's row lock (which unavailability writes take too), and enforced by the
// exclusion constraint `car_booking_no_overlap`, whose violation becomes the same CarUnavailable answer.
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Car } from '../cars/car.entity.js';
import { carShareIdOf } from '../db/car-share-condition.js';
import { plainRows, runPrepared, runSql } from '../db/rows.js';
import { carUnavailable } from './booking.rules.js';
import { occupyingStates, sqlStates } from './car-booking.entity.js';

/** Loads the car holding its row lock until the transaction ends; null when there is no such car. */
export function lockCarRow(em: EntityManager, carId: string): Promise<Car | null> {
  return em.findOne(Car, { id: carId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
}

/** The car's columns by name: a prepared statement's result must not change shape under it (no `select *`). */
let carColumns: string | undefined;
const columnsOfCar = (em: EntityManager): string =>
  (carColumns ??= em
    .getMetadata()
    .get(Car)
    .props.flatMap((p) => p.fieldNames ?? [])
    .map((c) => `"${c}"`)
    .join(', '));

/**
 * The same lock as `lockCarRow`, as a prepared statement returning a plain row shaped like the entity (no
 * identity map, no change tracking): for a command that reads the car but does not change it.
 */
export async function lockCarRowPlain(em: EntityManager, carId: string): Promise<Car | null> {
  const rows = await runPrepared<Record<string, unknown>>(
    em,
    `select ${columnsOfCar(em)} from car where car_share_id = ? and id = ? for update`,
    [carShareIdOf(em), carId],
  );
  return plainRows(em, Car, rows)[0] ?? null;
}

/** Throws CarUnavailable naming the earliest period that overlaps [start, end), other than the booking's own. */
export async function assertPeriodFree(
  em: EntityManager,
  carId: string,
  start: Date,
  end: Date,
  bookingId: string,
): Promise<void> {
  const cs = carShareIdOf(em);
  const rows = await runSql<{ start_date_utc: Date; end_date_utc: Date }>(
    em,
    `select start_date_utc, end_date_utc from (
       select start_date_utc, end_date_utc from car_booking
        where car_share_id = ? and car_id = ? and state in (${sqlStates(occupyingStates)}) and id <> ?
          and start_date_utc < ? and end_date_utc > ?
       union all
       select start_date_utc, end_date_utc from unavailability
        where car_share_id = ? and car_id = ? and start_date_utc < ? and end_date_utc > ?) taken
      order by start_date_utc limit 1`,
    [cs, carId, bookingId, end, start, cs, carId, end, start],
  );
  const c = rows[0];
  if (c) throw carUnavailable(new Date(c.start_date_utc), new Date(c.end_date_utc));
}

/** `2026-07-01 12:00:00+00` (PostgreSQL's text form of a timestamptz) → a Date. */
function pgTimestamp(s: string): Date | null {
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2}(?:\.\d+)?)([+-]\d{2})(?::?(\d{2}))?$/.exec(s);
  if (!m) return null;
  const d = new Date(`${m[1]}T${m[2]}${m[3]}:${m[4] ?? '00'}`);
  return Number.isNaN(d.getTime()) ? null : d;
}

/**
 * Flushes a change that makes a booking occupy the car. Should a writer that skipped the row lock race past
 * the check, the exclusion constraint refuses it, and the period it met is the conflict we report.
 */
export async function flushOccupying(
  em: EntityManager,
  booking: { id: string; carId: string },
  start: Date,
  end: Date,
): Promise<void> {
  try {
    await em.flush();
  } catch (e) {
    throw await asCarUnavailable(e, em, { ...booking, start, end });
  }
}

/**
 * An exclusion-constraint violation as CarUnavailable naming the existing period; anything else unchanged.
 * PostgreSQL names the period in its message only to a role that no row-level security binds, so as the app role
 * the period is read afresh: the aborted transaction can answer nothing, a new one of the same scope can (the
 * booking met has committed, or the constraint would have waited for it).
 */
export async function asCarUnavailable(
  e: unknown,
  em: EntityManager,
  b: { id: string; carId: string; start: Date; end: Date },
): Promise<unknown> {
  const err = e as { code?: string; detail?: string };
  if (err.code !== '23P01') return e;
  const periods = [...String(err.detail ?? '').matchAll(/\["([^"]+)","([^"]+)"\)/g)];
  const last = periods.at(-1);
  const from = last ? pgTimestamp(last[1]!) : null;
  const to = last ? pgTimestamp(last[2]!) : null;
  if (from && to) return carUnavailable(from, to);
  try {
    await assertPeriodFree(em.fork(), b.carId, b.start, b.end, b.id);
  } catch (conflict) {
    return conflict;
  }
  return carUnavailable(b.start, b.end);
}
