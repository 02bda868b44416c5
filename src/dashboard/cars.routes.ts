// Cars: search by make, owner and status; one car's page; list and unlist as an operator.
import type Router from '@koa/router';
import type Koa from 'koa';
import { carStatuses } from '../cars/car.entity.js';
import {
  type BookingRow,
  type CarDetail,
  type CarQuery,
  type CarRow,
  carPage,
  carPath,
  carsPage,
  type Unavailability,
} from './cars.pages.js';
import { describeError } from './errors.js';
import { html } from './html.js';
import type { Kit } from './kit.js';
import { BASE, noticeOf } from './layout.js';
import { malformedIds, noResults, offsetOf, oneOf, param } from './query.js';

type Page<T> = { total: number; limit: number; offset: number; nodes: T[] };

const ROW = `id ownerId make model year status isVerified lockState licensePlate { jurisdiction number }
  createdDateUtc owner { firstName lastName }`;
const SEARCH = `query($make: String, $ownerId: UUID, $status: CarStatus, $offset: Int) {
  cars(make: $make, ownerId: $ownerId, status: $status, limit: 25, offset: $offset) {
    total limit offset nodes { ${ROW} } } }`;
const ONE = `query($id: UUID!) {
  car(id: $id) { ${ROW} color seats transmission hourlyRate { amount currency } autoApprove homeLocation { address }
    lockStateChangedDateUtc verifications { id kind status decidedDateUtc } }
  carBookings(carId: $id, sort: "-startDateUtc", limit: 50) { total limit offset nodes {
    id reference state startDateUtc endDateUtc borrowerId borrower { firstName lastName } } }
  unavailabilities(carId: $id, sort: "-startDateUtc", limit: 50) { total limit offset nodes {
    id startDateUtc endDateUtc reason note } } }`;
const ACTIONS = {
  list: { doc: 'mutation($id: UUID!) { listCar(id: $id) { id status } }', notice: 'car-listed' },
  unlist: { doc: 'mutation($id: UUID!) { unlistCar(id: $id) { id status } }', notice: 'car-unlisted' },
} as const;

const labels = { ownerId: 'Owner (user id)', make: 'Make', id: 'Car' };
const idOf = (ctx: Koa.Context) => String(ctx.params.id);
const backToCars = html`<p><a href="${BASE}/cars">Back to the cars</a></p>`;

export function serveCarPages(router: Router, kit: Kit): void {
  router.get(
    '/cars',
    kit.operator(async (ctx, op) => {
      const f: CarQuery = {
        make: param(ctx, 'make'),
        ownerId: param(ctx, 'ownerId'),
        status: oneOf(param(ctx, 'status'), carStatuses),
      };
      const offset = offsetOf(ctx.query);
      const malformed = malformedIds({ ownerId: f.ownerId }, labels);
      if (malformed)
        return op.page({
          title: 'Cars',
          section: 'cars',
          body: carsPage(noResults(), f),
          problem: malformed,
        });
      const r = await op.api.run<{ cars: Page<CarRow> }>(SEARCH, {
        make: f.make || null,
        ownerId: f.ownerId || null,
        status: f.status || null,
        offset,
      });
      op.page({
        title: 'Cars',
        section: 'cars',
        body: carsPage(r.ok ? r.data.cars : noResults(), f),
        problem: r.ok ? undefined : describeError(r.error, labels),
      });
    }),
  );

  router.get(
    '/cars/:id',
    kit.operator(async (ctx, op) => {
      const r = await op.api.run<{
        car: CarDetail;
        carBookings: Page<BookingRow>;
        unavailabilities: Page<Unavailability>;
      }>(ONE, { id: idOf(ctx) });
      if (!r.ok)
        return op.page(
          { title: 'Car', section: 'cars', body: backToCars, problem: describeError(r.error, labels) },
          r.error.code === 'NotFound' ? 404 : 200,
        );
      const c = r.data.car;
      op.page({
        title: `${c.make} ${c.model} ${c.year}`,
        section: 'cars',
        notice: noticeOf(ctx.query.notice),
        body: carPage(c, r.data.carBookings, r.data.unavailabilities, op.user.csrf),
      });
    }),
  );

  for (const [action, { doc, notice }] of Object.entries(ACTIONS))
    router.post(
      `/cars/:id/${action}`,
      kit.operator(async (ctx, op) => {
        const r = await op.api.run(doc, { id: idOf(ctx) });
        if (!r.ok)
          return op.page({
            title: `The car was not ${action}ed`,
            section: 'cars',
            body: html`<p><a href="${carPath(idOf(ctx))}">Back to the car</a></p>`,
            problem: describeError(r.error, labels),
          });
        ctx.status = 303;
        ctx.redirect(`${carPath(idOf(ctx))}?notice=${notice}`);
      }),
    );
}
