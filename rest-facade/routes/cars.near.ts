// The `near` and `radiuskm` parameters of the car search (CONTRACT §17): `near=<latitude>,<longitude>` is one
// parameter holding two numbers, so it is bound here rather than by the generic rules. Ranges are the schema's.
import type { Param, Params } from '../request.js';
import type { ComposedArgument } from '../route.types.js';
import { numberFromText } from '../text.js';

type Fail = Parameters<ComposedArgument['bind']>[1];

/** A number from text or JSON: NaN when it is not one, ±Infinity when it is too large for a double. */
function numberOf(value: unknown): number {
  if (typeof value === 'number') return value;
  return typeof value === 'string' ? numberFromText(value) : Number.NaN;
}

/** The place: `52.52,13.405` (query, form or JSON text), or a JSON object `{"Latitude":..,"Longitude":..}`. */
function place(p: Param, fail: Fail): { latitude: number; longitude: number } | undefined {
  let parts: unknown[] | undefined;
  if (typeof p.value === 'string') parts = p.value.split(',');
  else if (p.value !== null && typeof p.value === 'object' && !Array.isArray(p.value)) {
    const fields = new Map(Object.entries(p.value).map(([k, v]) => [k.toLowerCase(), v]));
    parts = [fields.get('latitude'), fields.get('longitude')];
  }
  const [latitude, longitude] = (parts ?? []).map(numberOf);
  if (parts?.length !== 2 || Number.isNaN(latitude) || Number.isNaN(longitude)) {
    fail('InvalidFormat', 'Near', 'Near must be a latitude and a longitude in degrees: near=52.52,13.405');
    return undefined;
  }
  if (!Number.isFinite(latitude) || !Number.isFinite(longitude)) {
    fail('OutOfRange', 'Near', 'Near must be a latitude from -90 to 90 and a longitude from -180 to 180');
    return undefined;
  }
  return { latitude: latitude!, longitude: longitude! };
}

function radius(p: Param, fail: Fail): number | undefined {
  const r = numberOf(p.value);
  if (Number.isNaN(r)) {
    fail('InvalidFormat', 'RadiusKm', 'RadiusKm must be a number of kilometres');
    return undefined;
  }
  if (!Number.isFinite(r)) {
    fail('OutOfRange', 'RadiusKm', 'RadiusKm must be more than 0 and at most 500');
    return undefined;
  }
  return r;
}

export const near: ComposedArgument = {
  parameters: [
    {
      name: 'near',
      type: 'string',
      description:
        '`<latitude>,<longitude>` in degrees: only cars within `radiuskm` of it, each with `DistanceKm`, nearest first.',
    },
    {
      name: 'radiusKm',
      type: 'number',
      description: 'Kilometres, more than 0 and at most 500 (default 10).',
    },
  ],
  bind(params: Params, fail: Fail) {
    const p = params.get('near');
    const r = params.get('radiuskm');
    if (!p) {
      if (r) fail('InvalidValue', 'RadiusKm', 'RadiusKm applies only with Near');
      return undefined;
    }
    const at = place(p, fail);
    const km = r ? radius(r, fail) : undefined;
    if (!at || (r && km === undefined)) return undefined;
    return km === undefined ? at : { ...at, radiusKm: km };
  },
};
