// Reading a car's unavailabilities: its owner and ops only (CONTRACT §7).
import { plainRows } from '../db/rows.js';
import { searchRows } from '../db/search.js';
import type { Context } from '../graphql/context.js';
import { type Page, type PageArgs, pageRequest } from '../shared/pagination.js';
import { loadManagedCar } from './car.rules.js';
import { Unavailability } from './unavailability.entity.js';

/** Sortable fields; each has an index on (car_id, column, id). */
const columns = {
  startDateUtc: 'start_date_utc',
  endDateUtc: 'end_date_utc',
  reason: 'reason',
  createdDateUtc: 'created_date_utc',
  lastModifiedDateUtc: 'last_modified_date_utc',
} as const;

export async function searchUnavailabilities(
  ctx: Context,
  carId: string,
  args: PageArgs,
): Promise<Page<Unavailability>> {
  const page = pageRequest(args, { fields: Object.keys(columns), defaultSort: 'startDateUtc' });
  const car = await loadManagedCar(ctx, carId, false, true);
  const { rows, total } = await searchRows<Record<string, unknown>>(
    ctx.em,
    { table: 'unavailability', where: ['car_id = ?'], params: [car.id], columns },
    page,
  );
  return { ...page, total, nodes: plainRows(ctx.em, Unavailability, rows) };
}
