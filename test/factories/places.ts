// Places for the distance search, and the great-circle distance computed here, independently of the service:
// haversine in its atan2 form on the mean Earth radius (CONTRACT §17).

export interface At {
  latitude: number;
  longitude: number;
}

export const BERLIN: At = { latitude: 52.520008, longitude: 13.404954 };
/** Around Berlin's center: 0.6, 5.2, 14.1, 27 and 255 km away. */
export const AROUND_BERLIN = {
  alexanderplatz: { latitude: 52.521918, longitude: 13.413215 },
  tempelhof: { latitude: 52.4736, longitude: 13.4017 },
  spandau: { latitude: 52.5353, longitude: 13.1974 },
  potsdam: { latitude: 52.3906, longitude: 13.0645 },
  hamburg: { latitude: 53.5511, longitude: 9.9937 },
} as const satisfies Record<string, At>;

const R = 6371.0088;
const rad = (deg: number) => (deg * Math.PI) / 180;

export function greatCircleKm(a: At, b: At): number {
  const h =
    Math.sin(rad(b.latitude - a.latitude) / 2) ** 2 +
    Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(rad(b.longitude - a.longitude) / 2) ** 2;
  return 2 * R * Math.atan2(Math.sqrt(h), Math.sqrt(1 - h));
}

/** The answer may differ from the exact distance by the rounding to 3 decimals and float noise, no more. */
export const ROUNDING_KM = 0.0005 + 1e-9;
