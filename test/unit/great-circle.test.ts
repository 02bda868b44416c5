// The bounding box of a distance search holds its whole circle: every point at the radius, walked around the
// circle with the destination formula, lies inside — in a city, across ±180°, near and on the poles.
import { describe, expect, it } from 'vitest';
import { type BoundingBox, boundingBox, EARTH_RADIUS_KM, type Place } from '../../src/db/great-circle.js';

const rad = (d: number) => (d * Math.PI) / 180;
const deg = (r: number) => (r * 180) / Math.PI;

/** The point `km` away from `from` on `bearing` (degrees), longitude normalised to [-180, 180]. */
function destination(from: Place, km: number, bearing: number): Place {
  const d = km / EARTH_RADIUS_KM;
  const lat1 = rad(from.latitude);
  const lat2 = Math.asin(
    Math.sin(lat1) * Math.cos(d) + Math.cos(lat1) * Math.sin(d) * Math.cos(rad(bearing)),
  );
  const lon2 =
    rad(from.longitude) +
    Math.atan2(
      Math.sin(rad(bearing)) * Math.sin(d) * Math.cos(lat1),
      Math.cos(d) - Math.sin(lat1) * Math.sin(lat2),
    );
  const lon = ((deg(lon2) + 540) % 360) - 180;
  return { latitude: deg(lat2), longitude: lon };
}

const inside = (box: BoundingBox, p: Place) =>
  p.latitude >= box.minLatitude &&
  p.latitude <= box.maxLatitude &&
  box.longitudes.some(([w, e]) => p.longitude >= w && p.longitude <= e);

describe('boundingBox', () => {
  it.each([
    ['a city', { latitude: 52.52, longitude: 13.405 }, 10],
    ['the antimeridian, west of it', { latitude: -16.8, longitude: 179.95 }, 20],
    ['the antimeridian, east of it', { latitude: 65.5, longitude: -179.99 }, 500],
    ['on the antimeridian', { latitude: 0, longitude: 180 }, 100],
    ['near the north pole', { latitude: 89.95, longitude: 0 }, 20],
    ['on the south pole', { latitude: -90, longitude: 0 }, 10],
    ['far north, the box still narrow', { latitude: 80, longitude: 100 }, 500],
  ])('holds the whole circle: %s', (_, center, km) => {
    const box = boundingBox(center, km);
    for (let bearing = 0; bearing < 360; bearing += 0.5)
      for (const f of [1, 0.5, 0.999999])
        expect(inside(box, destination(center, km * f, bearing)), `bearing ${bearing}`).toBe(true);
  });

  it('splits the longitudes across ±180° and spans them all when the circle reaches a pole', () => {
    expect(boundingBox({ latitude: -16.8, longitude: 179.95 }, 20).longitudes).toHaveLength(2);
    expect(boundingBox({ latitude: 52.52, longitude: 13.405 }, 10).longitudes).toHaveLength(1);
    expect(boundingBox({ latitude: 89.95, longitude: 0 }, 20).longitudes).toEqual([[-180, 180]]);
    // A city's box is a city's size: about ±0.09° of latitude and ±0.15° of longitude at 52.5° N.
    const city = boundingBox({ latitude: 52.52, longitude: 13.405 }, 10);
    expect(city.maxLatitude - city.minLatitude).toBeCloseTo(0.18, 2);
    const [[w, e]] = city.longitudes as [[number, number]];
    expect(e - w).toBeCloseTo(0.296, 2);
  });
});
