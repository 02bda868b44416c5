// One car with what its answer embeds (its rating and verifications, its owner's profile and rating), read in one
// statement that fills the request's loaders: the field resolvers then find them without SQL. A car by id with
// every embed was four statements in two round trips; most of its CPU was the pg protocol work for them
// (test/bench, S2).
import type { GraphQLResolveInfo, SelectionSetNode } from 'graphql';
import { profileByUserId } from '../accounts/account.loaders.js';
import { Profile } from '../accounts/profile.entity.js';
import { carShareIdOf } from '../db/car-share-condition.js';
import { plainRows, rowJson, runPrepared } from '../db/rows.js';
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

/** The embeds the car being resolved selects. */
export function selectedEmbeds(info: GraphQLResolveInfo): CarEmbeds {
  const e = { ...none };
  for (const node of info.fieldNodes)
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

const anyOf = (e: CarEmbeds): boolean => e.rating || e.verifications || e.owner || e.ownerRating;

type Row = Record<string, unknown>;
type Em = Context['em'];

/**
 * The car and each embed as one `json` column (rowJson): a few values to receive instead of some 30 columns.
 * json, not jsonb: PostgreSQL writes it out as it builds it. Each table names the car share (one `?` each, before
 * the car's own two: the embeds come first in the statement).
 */
const parts = (em: Em): [keyof CarEmbeds, string][] => [
  [
    'rating',
    `(select ${rowJson(em, Rating, 'r')} from rating r
      where r.car_share_id = ? and r.subject_type = 'Car' and r.subject_id = c.id)`,
  ],
  [
    'verifications',
    `(select coalesce(json_agg(${rowJson(em, Verification, 'v')} order by v.kind asc), '[]') from verification v
      where v.car_share_id = ? and v.subject_type = 'Car' and v.subject_id = c.id)`,
  ],
  [
    'owner',
    `(select ${rowJson(em, Profile, 'p')} from profile p where p.car_share_id = ? and p.user_id = c.owner_id)`,
  ],
  [
    'ownerRating',
    `(select ${rowJson(em, Rating, 'r')} from rating r
      where r.car_share_id = ? and r.subject_type = 'UserAccount' and r.subject_id = c.owner_id)`,
  ],
];

/** One statement text per combination of embeds (at most 16), built once, and how many embeds it reads. */
const statements = new Map<string, { sql: string; embeds: number }>();
function statementFor(em: Em, e: CarEmbeds): { sql: string; embeds: number } {
  const key = `${+e.rating}${+e.verifications}${+e.owner}${+e.ownerRating}`;
  let s = statements.get(key);
  if (s === undefined) {
    const columns = parts(em)
      .filter(([k]) => e[k])
      .map(([k, expr]) => `${expr} as "${k}"`);
    s = {
      sql: `select ${rowJson(em, Car, 'c')} as car, ${columns.join(', ')} from car c
        where c.car_share_id = ? and c.id = ?`,
      embeds: columns.length,
    };
    statements.set(key, s);
  }
  return s;
}

/** The columns of one read: the car, and the embeds asked for. */
interface CarRow {
  car: Row;
  rating?: Row | null;
  verifications?: Row[];
  owner?: Row | null;
  ownerRating?: Row | null;
}

/**
 * Reads the car and the embeds asked for, and primes carById and the embeds' loaders with them (a car that does
 * not exist as null). Without embeds it is carById's own statement.
 */
export async function loadCarWithEmbeds(
  ctx: Pick<Context, 'em' | 'loaders'>,
  id: string,
  e: CarEmbeds,
): Promise<Car | null> {
  const cars = carById(ctx);
  if (!anyOf(e)) return cars.load(id);
  const { sql, embeds } = statementFor(ctx.em, e);
  const carShareId = carShareIdOf(ctx.em);
  const [row] = await runPrepared<CarRow>(ctx.em, sql, [
    ...Array.from({ length: embeds }, () => carShareId),
    carShareId,
    id,
  ]);
  if (!row) {
    cars.prime(id, null);
    return null;
  }
  const em = ctx.em;
  const [car] = plainRows(em, Car, [row.car]) as [Car];
  cars.prime(id, car);
  const carRef = { subjectType: 'Car', subjectId: car.id } as const;
  const ownerRef = { subjectType: 'UserAccount', subjectId: car.ownerId } as const;
  const ratings = ratingBySubject(ctx);
  if (e.rating) ratings.prime(carRef, ratingOf(em, row.rating) ?? emptyRating(carRef));
  if (e.ownerRating) ratings.prime(ownerRef, ratingOf(em, row.ownerRating) ?? emptyRating(ownerRef));
  if (e.verifications)
    verificationsBySubject(ctx).prime(carRef, plainRows(em, Verification, row.verifications!));
  if (e.owner)
    profileByUserId(ctx).prime(car.ownerId, row.owner ? plainRows(em, Profile, [row.owner])[0]! : null);
  return car;
}

const ratingOf = (em: Em, row: Row | null | undefined): RatingView | undefined =>
  row ? (plainRows(em, Rating, [row])[0] as RatingView) : undefined;
