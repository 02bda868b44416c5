// One car with what its answer embeds (its rating and verifications, its owner's profile and rating), read in one
// statement that fills the request's loaders: the field resolvers then find them without SQL. A car by id with
// every embed was four statements in two round trips; most of its CPU was the pg protocol work for them
// (test/bench, S2).
import type { FieldNode, GraphQLResolveInfo, SelectionSetNode } from 'graphql';
import { profileByUserId } from '../accounts/account.loaders.js';
import { Profile } from '../accounts/profile.entity.js';
import { carShareIdOf } from '../db/car-share-condition.js';
import { runPrepared } from '../db/rows.js';
import { type Read, type View, viewJson } from '../db/views.js';
import type { Context } from '../graphql/context.js';
import { Rating } from '../ratings/rating.entity.js';
import { emptyRating, type RatingView, ratingBySubject } from '../ratings/rating.loaders.js';
import { Verification } from '../verifications/verification.entity.js';
import { verificationsBySubject } from '../verifications/verification.loaders.js';
import { Car } from './car.entity.js';
import { carById } from './car.loaders.js';

/** What a selection of one car embeds beyond the car's own columns. */
export interface CarEmbeds {
  rating: boolean;
  /** `verifications`, or `isVerified`, which is decided from them. */
  verifications: boolean;
  owner: boolean;
  ownerRating: boolean;
}

const none: CarEmbeds = { rating: false, verifications: false, owner: false, ownerRating: false };

/** The fields a selection set names directly (fragments are not looked into: their embeds load as usual). */
function* fieldsOf(set: SelectionSetNode | undefined) {
  for (const s of set?.selections ?? []) if (s.kind === 'Field') yield s;
}

/** The embeds of the cars that `fields` (a car's field nodes) select. */
function embedsIn(fields: readonly FieldNode[]): CarEmbeds {
  const e = { ...none };
  for (const node of fields)
    for (const f of fieldsOf(node.selectionSet)) {
      const name = f.name.value;
      if (name === 'rating') e.rating = true;
      else if (name === 'verifications' || name === 'isVerified') e.verifications = true;
      else if (name === 'owner') {
        e.owner = true;
        for (const o of fieldsOf(f.selectionSet)) if (o.name.value === 'rating') e.ownerRating = true;
      }
    }
  return e;
}

/** The embeds the car being resolved selects. */
export const selectedEmbeds = (info: GraphQLResolveInfo): CarEmbeds => embedsIn(info.fieldNodes);

/** The embeds a page's cars select: those of its `nodes`. */
export const selectedPageEmbeds = (info: GraphQLResolveInfo): CarEmbeds =>
  embedsIn(
    info.fieldNodes.flatMap((page) =>
      [...fieldsOf(page.selectionSet)].filter((f) => f.name.value === 'nodes'),
    ),
  );

const anyEmbed = (e: CarEmbeds): boolean => e.rating || e.verifications || e.owner || e.ownerRating;

type Em = Context['em'];

/**
 * Each embed as one `json` column of its view (src/db/views.ts) over the car at `car`. Each table names the car
 * share (one `?` each, before anything else of the statement: the embeds come first in its select list).
 */
const parts = (em: Em, car: string): [keyof CarEmbeds, string][] => [
  [
    'rating',
    `(select ${viewJson(em, Rating, 'r')} from rating r
      where r.car_share_id = ? and r.subject_type = 'Car' and r.subject_id = ${car}.id)`,
  ],
  [
    'verifications',
    `(select coalesce(json_agg(${viewJson(em, Verification, 'v')} order by v.kind asc), '[]') from verification v
      where v.car_share_id = ? and v.subject_type = 'Car' and v.subject_id = ${car}.id)`,
  ],
  [
    'owner',
    `(select ${viewJson(em, Profile, 'p')} from profile p where p.car_share_id = ? and p.user_id = ${car}.owner_id)`,
  ],
  [
    'ownerRating',
    `(select ${viewJson(em, Rating, 'r')} from rating r
      where r.car_share_id = ? and r.subject_type = 'UserAccount' and r.subject_id = ${car}.owner_id)`,
  ],
];

/** A select list of the car at an alias and its embeds, and the values its `?` take. */
export interface CarColumns {
  /** The car's view as `car`, then each embed asked for as one `json` column of its view. */
  select: string;
  /** Each embed names the car share (one `?` each, before anything else of the statement). */
  params(carShareId: string): string[];
}

/**
 * The select list for `e` over the car at `car`, made once per combination (at most 16) and alias: a text made anew
 * per request is hashed anew to find its prepared statement (test/bench, S2).
 */
const selectLists = new Map<string, CarColumns>();
export function carColumns(em: Em, e: CarEmbeds, car: string): CarColumns {
  const key = `${+e.rating}${+e.verifications}${+e.owner}${+e.ownerRating}\n${car}`;
  let s = selectLists.get(key);
  if (s === undefined) {
    const embeds = parts(em, car)
      .filter(([k]) => e[k])
      .map(([k, expr]) => `, ${expr} as "${k}"`);
    s = {
      select: `${viewJson(em, Car, car)} as car${embeds.join('')}`,
      params: (carShareId) => embeds.map(() => carShareId),
    };
    selectLists.set(key, s);
  }
  return s;
}

/** The embeds of one car as its statement returned them (json columns, parsed by pg). */
export interface EmbedRow {
  rating?: Read<RatingView> | null;
  verifications?: View<Verification>[];
  owner?: View<Profile> | null;
  ownerRating?: Read<RatingView> | null;
}

/** Primes the embeds' loaders with what `row` read for `car`: the field resolvers then find them without SQL. */
export function primeEmbeds(
  ctx: Pick<Context, 'em' | 'loaders'>,
  car: { id: string; ownerId: string },
  row: EmbedRow,
  e: CarEmbeds,
): void {
  const carRef = { subjectType: 'Car', subjectId: car.id } as const;
  const ownerRef = { subjectType: 'UserAccount', subjectId: car.ownerId } as const;
  const ratings = ratingBySubject(ctx);
  if (e.rating) ratings.prime(carRef, row.rating ?? emptyRating(carRef));
  if (e.ownerRating) ratings.prime(ownerRef, row.ownerRating ?? emptyRating(ownerRef));
  if (e.verifications) verificationsBySubject(ctx).prime(carRef, row.verifications!);
  if (e.owner) profileByUserId(ctx).prime(car.ownerId, row.owner ?? null);
}

/**
 * The statement of one car with `columns`, made once for each, as the select list is. The car is one json value:
 * for one row, some 30 columns cost more to receive (pg's setup per column of every result) than one json value.
 */
const oneCarStatements = new WeakMap<CarColumns, string>();
function oneCar(columns: CarColumns): string {
  let sql = oneCarStatements.get(columns);
  if (sql === undefined) {
    sql = `select ${columns.select} from car c where c.car_share_id = ? and c.id = ?`;
    oneCarStatements.set(columns, sql);
  }
  return sql;
}

/**
 * Reads the car and the embeds asked for, and primes carById and the embeds' loaders with them (a car that does
 * not exist as null). Without embeds it is carById's own statement.
 */
export async function loadCarWithEmbeds(
  ctx: Pick<Context, 'em' | 'loaders'>,
  id: string,
  e: CarEmbeds,
): Promise<Read<Car> | null> {
  const cars = carById(ctx);
  if (!anyEmbed(e)) return cars.load(id);
  const em = ctx.em;
  const columns = carColumns(em, e, 'c');
  const carShareId = carShareIdOf(em);
  const [row] = await runPrepared<EmbedRow & { car: View<Car> }>(em, oneCar(columns), [
    ...columns.params(carShareId),
    carShareId,
    id,
  ]);
  if (!row) {
    cars.prime(id, null);
    return null;
  }
  const car = row.car;
  cars.prime(id, car);
  primeEmbeds(ctx, car, row, e);
  return car;
}
