// The `near` part of the car search (CONTRACT §17): the argument checked, and the SQL it adds — the bounding
// box the home-location index answers, the exact distance filter, and `distanceKm` as a column and sort field.
import { boundingBox, boxCondition, distanceSql, type Place } from '../db/great-circle.js';
import { Check } from '../shared/validation.js';

export const DEFAULT_RADIUS_KM = 10;
export const MAX_RADIUS_KM = 500;

export interface NearInput {
  latitude?: number | null;
  longitude?: number | null;
  radiusKm?: number | null;
}

export interface Near extends Place {
  radiusKm: number;
}

/**
 * The checked argument, or null without one. Errors name `near` for the place and `radiusKm` for the radius,
 * which the REST facade calls `Near` and `RadiusKm`, its two parameters.
 */
export function nearArgument(input: NearInput | null | undefined): Near | null {
  if (input === null || input === undefined) return null;
  const { latitude, longitude } = input;
  const radiusKm = input.radiusKm ?? DEFAULT_RADIUS_KM;
  const check = new Check();
  if (latitude === null || latitude === undefined || longitude === null || longitude === undefined)
    check.add('NotEmpty', 'near', 'A place needs both a latitude and a longitude');
  else if (!Number.isFinite(latitude) || latitude < -90 || latitude > 90)
    check.add('OutOfRange', 'near', 'The latitude must be between -90 and 90', { Min: -90, Max: 90 });
  else if (!Number.isFinite(longitude) || longitude < -180 || longitude > 180)
    check.add('OutOfRange', 'near', 'The longitude must be between -180 and 180', {
      Min: -180,
      Max: 180,
    });
  if (!Number.isFinite(radiusKm) || radiusKm <= 0 || radiusKm > MAX_RADIUS_KM)
    check.add('OutOfRange', 'radiusKm', `The radius must be more than 0 and at most ${MAX_RADIUS_KM} km`, {
      Min: 0,
      Max: MAX_RADIUS_KM,
    });
  check.throwIfAny();
  return { latitude: latitude!, longitude: longitude!, radiusKm };
}

/** What `near` adds to the search statement; every number in it is a checked, finite literal. */
export interface NearSql {
  /** Conditions: the box first (the index), then the exact distance. */
  where: string[];
  /** `distanceKm` rounded to 3 decimals: the output column and the sort expression. */
  distanceKm: string;
}

export function nearSql(near: Near): NearSql {
  const exact = distanceSql(near, 'home_latitude', 'home_longitude');
  return {
    where: [
      boxCondition(boundingBox(near, near.radiusKm), 'home_latitude', 'home_longitude'),
      `${exact} <= ${near.radiusKm}::float8`,
    ],
    // Rounded before sorting, so ties in what the client sees are broken by id as every sort is (CONTRACT §3).
    distanceKm: `round(${exact}::numeric, 3)::float8`,
  };
}
