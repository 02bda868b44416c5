// Great-circle distance in SQL: a bounding box an index on (latitude, longitude) can answer, then the exact
// haversine distance on what the box lets through (mean Earth radius, CONTRACT §17).

/** The mean Earth radius (IUGG), in kilometres. */
export const EARTH_RADIUS_KM = 6371.0088;

export interface Place {
  latitude: number;
  longitude: number;
}

/** Closed longitude intervals in degrees; two when the box crosses the antimeridian. */
export interface BoundingBox {
  minLatitude: number;
  maxLatitude: number;
  longitudes: [number, number][];
}

const RAD = Math.PI / 180;
/** Floating-point slack, so a place exactly on the circle is never cut off by the box (about 1 mm). */
const SLACK = 1e-8;

/**
 * The smallest latitude/longitude box holding every point within `radiusKm` of `center` (J. P. Matuschek's
 * method). When the circle reaches a pole the box spans every longitude; when it crosses ±180° the longitude
 * range is split in two.
 */
export function boundingBox(center: Place, radiusKm: number): BoundingBox {
  const d = radiusKm / EARTH_RADIUS_KM;
  const lat = center.latitude * RAD;
  const minLat = lat - d;
  const maxLat = lat + d;
  if (minLat <= -Math.PI / 2 || maxLat >= Math.PI / 2)
    return {
      minLatitude: Math.max(-90, minLat / RAD - SLACK),
      maxLatitude: Math.min(90, maxLat / RAD + SLACK),
      longitudes: [[-180, 180]],
    };
  const dLon = Math.asin(Math.sin(d) / Math.cos(lat)) / RAD + SLACK;
  const west = center.longitude - dLon;
  const east = center.longitude + dLon;
  const longitudes: [number, number][] =
    west < -180
      ? [
          [west + 360, 180],
          [-180, east],
        ]
      : east > 180
        ? [
            [west, 180],
            [-180, east - 360],
          ]
        : [[west, east]];
  return { minLatitude: minLat / RAD - SLACK, maxLatitude: maxLat / RAD + SLACK, longitudes };
}

/** A number written into SQL: only finite numbers reach here, so the text is always a numeric literal. */
function literal(n: number): string {
  if (!Number.isFinite(n)) throw new Error(`not a finite number: ${n}`);
  return `${n}::float8`;
}

/** The box as a condition on two trusted column names. */
export function boxCondition(box: BoundingBox, latColumn: string, lonColumn: string): string {
  const lons = box.longitudes.map(([w, e]) => `${lonColumn} between ${literal(w)} and ${literal(e)}`);
  return `${latColumn} between ${literal(box.minLatitude)} and ${literal(box.maxLatitude)} and (${lons.join(' or ')})`;
}

/**
 * The haversine distance in kilometres from `center` to the place in two trusted columns (degrees). The
 * center's values are written as literals: the expression appears in the select list, the filter and the
 * order, and literals need no placeholders in any of them.
 */
export function distanceSql(center: Place, latColumn: string, lonColumn: string): string {
  const lat = literal(center.latitude * RAD);
  const lon = literal(center.longitude * RAD);
  const cosLat = literal(Math.cos(center.latitude * RAD));
  const a =
    `power(sin((radians(${latColumn}) - ${lat}) / 2), 2) + ` +
    `${cosLat} * cos(radians(${latColumn})) * power(sin((radians(${lonColumn}) - ${lon}) / 2), 2)`;
  return `(2 * ${literal(EARTH_RADIUS_KM)} * asin(least(1, sqrt(${a}))))`;
}
