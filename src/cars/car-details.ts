// The editable details of a car (CONTRACT §5 Car): validated, trimmed and flattened to the entity's columns.
import { Check } from '../shared/validation.js';
import { type Car, type Transmission, transmissions } from './car.entity.js';

export interface CarDetailsInput {
  make?: string | null;
  model?: string | null;
  year?: number | null;
  color?: string | null;
  transmission?: string | null;
  seats?: number | null;
  description?: string | null;
  licensePlate?: { jurisdiction?: string | null; number?: string | null } | null;
  homeLocation?: { address?: string | null; latitude?: number | null; longitude?: number | null } | null;
  hourlyRate?: { amount?: string | null; currency?: string | null } | null;
  autoApprove?: boolean | null;
  minimumBookingMinutes?: number | null;
  maximumBookingMinutes?: number | null;
}

export type CarDetails = Pick<
  Car,
  | 'make'
  | 'model'
  | 'year'
  | 'color'
  | 'transmission'
  | 'seats'
  | 'description'
  | 'licensePlateJurisdiction'
  | 'licensePlateNumber'
  | 'homeAddress'
  | 'homeLatitude'
  | 'homeLongitude'
  | 'hourlyRateAmount'
  | 'hourlyRateCurrency'
  | 'autoApprove'
  | 'minimumBookingMinutes'
  | 'maximumBookingMinutes'
>;

export const MIN_BOOKING_MINUTES = 30;
export const MAX_BOOKING_MINUTES = 20_160;
/** What a new car gets when the owner leaves these out. */
const defaults = {
  autoApprove: false,
  minimumBookingMinutes: 60,
  maximumBookingMinutes: MAX_BOOKING_MINUTES,
};

const AMOUNT = /^\d{1,10}(\.\d{1,2})?$/;
// The runtime's own ISO 4217 list: a real code, not just three letters.
const currencies = new Set(Intl.supportedValuesOf('currency'));

/**
 * Checks `input` for a new car (`current` null: required fields must be there, defaults fill the rest) or
 * for a partial update (absent = unchanged; null clears an optional field and is refused for a required
 * one). Value objects (licensePlate, homeLocation, hourlyRate) are replaced whole. Returns the changes.
 */
export function checkCarDetails(
  input: CarDetailsInput,
  current: CarDetails | null,
  now: Date,
): Partial<CarDetails> {
  const check = new Check();
  const creating = current === null;
  const out: Partial<CarDetails> = {};
  const needed = (field: string, value: unknown): boolean =>
    (value !== undefined || creating) && check.required(field, value);
  const text = (field: string, value: string | null | undefined, min: number, max: number) => {
    const v = (value as string).trim();
    check.length(field, v, min, max);
    return v;
  };
  const optionalText = (field: string, value: string | null | undefined, max: number) => {
    if (value === undefined) return creating ? null : undefined;
    const v = value?.trim() || null;
    check.length(field, v, 0, max);
    return v;
  };

  if (needed('make', input.make)) out.make = text('make', input.make, 2, 50);
  if (needed('model', input.model)) out.model = text('model', input.model, 2, 50);
  if (needed('year', input.year)) {
    check.integer('year', input.year).range('year', input.year, 1900, now.getUTCFullYear() + 1);
    out.year = input.year!;
  }
  const color = optionalText('color', input.color, 50);
  if (color !== undefined) out.color = color;
  if (needed('transmission', input.transmission)) {
    check.oneOf('transmission', input.transmission, transmissions);
    out.transmission = input.transmission as Transmission;
  }
  if (needed('seats', input.seats)) {
    check.integer('seats', input.seats).range('seats', input.seats, 1, 9);
    out.seats = input.seats!;
  }
  const description = optionalText('description', input.description, 5000);
  if (description !== undefined) out.description = description;

  const plate = input.licensePlate;
  if (needed('licensePlate', plate)) {
    if (check.required('licensePlate.jurisdiction', plate!.jurisdiction))
      out.licensePlateJurisdiction = text('licensePlate.jurisdiction', plate!.jurisdiction, 1, 100);
    if (check.required('licensePlate.number', plate!.number))
      out.licensePlateNumber = text('licensePlate.number', plate!.number, 1, 20);
  }
  const home = input.homeLocation;
  if (needed('homeLocation', home)) {
    if (check.required('homeLocation.address', home!.address))
      out.homeAddress = text('homeLocation.address', home!.address, 1, 500);
    if (check.required('homeLocation.latitude', home!.latitude)) {
      check.range('homeLocation.latitude', home!.latitude, -90, 90);
      out.homeLatitude = home!.latitude!;
    }
    if (check.required('homeLocation.longitude', home!.longitude)) {
      check.range('homeLocation.longitude', home!.longitude, -180, 180);
      out.homeLongitude = home!.longitude!;
    }
  }
  const rate = input.hourlyRate;
  if (needed('hourlyRate', rate)) {
    if (check.required('hourlyRate.amount', rate!.amount)) {
      const amount = rate!.amount!.trim();
      check.pattern(
        'hourlyRate.amount',
        amount,
        AMOUNT,
        'a decimal amount with at most two decimals, e.g. 12.50',
      );
      // Canonical form, as the database gives it back: `12.5` and `012.50` are `12.50`.
      const [whole, cents = ''] = amount.split('.');
      if (AMOUNT.test(amount)) out.hourlyRateAmount = `${BigInt(whole!)}.${cents.padEnd(2, '0')}`;
    }
    if (check.required('hourlyRate.currency', rate!.currency)) {
      const currency = rate!.currency!.trim().toUpperCase();
      if (!currencies.has(currency))
        check.add(
          'InvalidValue',
          'hourlyRate.currency',
          'HourlyRate.Currency must be an ISO 4217 code, e.g. EUR',
        );
      out.hourlyRateCurrency = currency;
    }
  }

  // Fields with a default: left out (or null) they keep their value, or take the default on a new car.
  if (input.autoApprove != null) out.autoApprove = input.autoApprove;
  else if (creating) out.autoApprove = defaults.autoApprove;
  for (const f of ['minimumBookingMinutes', 'maximumBookingMinutes'] as const) {
    const v = input[f];
    if (v != null) {
      check.integer(f, v).range(f, v, MIN_BOOKING_MINUTES, MAX_BOOKING_MINUTES);
      out[f] = v;
    } else if (creating) out[f] = defaults[f];
  }
  check.throwIfAny();

  const min = out.minimumBookingMinutes ?? current!.minimumBookingMinutes;
  const max = out.maximumBookingMinutes ?? current!.maximumBookingMinutes;
  if (max < min) {
    const field = input.maximumBookingMinutes != null ? 'maximumBookingMinutes' : 'minimumBookingMinutes';
    check.add('InvalidValue', field, 'MaximumBookingMinutes must not be less than MinimumBookingMinutes');
    check.throwIfAny();
  }
  return out;
}
