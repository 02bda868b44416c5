// The strict UTC reader (CONTRACT §2, §13) behind the DateTime scalar, which the REST facade's binding uses too.
import { describe, expect, it } from 'vitest';
import { readUtc } from '../../src/shared/calendar.js';

const cases: [string, 'ok' | 'InvalidFormat' | 'OutOfRange', string?][] = [
  ['2026-07-03T12:00:00.000Z', 'ok', '2026-07-03T12:00:00.000Z'],
  ['2026-07-03T12:00Z', 'ok', '2026-07-03T12:00:00.000Z'],
  ['2026-07-03T12:00:00.1239+00:00', 'ok', '2026-07-03T12:00:00.123Z'],
  ['0001-01-01T00:00:00Z', 'ok', '0001-01-01T00:00:00.000Z'],
  ['0099-03-01T00:00:00Z', 'ok', '0099-03-01T00:00:00.000Z'],
  ['9999-12-31T23:59:59.999Z', 'ok', '9999-12-31T23:59:59.999Z'],
  ['2028-02-29T10:00:00Z', 'ok', '2028-02-29T10:00:00.000Z'],
  ['2027-02-29T10:00:00Z', 'InvalidFormat'],
  ['2027-02-30T10:00:00Z', 'InvalidFormat'],
  ['2027-04-31T10:00:00Z', 'InvalidFormat'],
  ['2027-13-01T10:00:00Z', 'InvalidFormat'],
  ['2027-01-01T25:00:00Z', 'InvalidFormat'],
  ['2027-01-01T24:00:00Z', 'InvalidFormat'],
  ['2027-01-01T10:60:00Z', 'InvalidFormat'],
  ['2027-01-01T10:00:60Z', 'InvalidFormat'],
  ['2027-01-01T10:00:00+01:00', 'InvalidFormat'],
  ['2027-01-01', 'InvalidFormat'],
  ['0000-01-01T00:00:00.000Z', 'OutOfRange'],
  ['+010000-01-01T00:00:00Z', 'OutOfRange'],
  ['-000001-01-01T00:00:00Z', 'OutOfRange'],
];

describe('readUtc', () => {
  it.each(cases)('%s → %s', (text, expected, iso) => {
    const r = readUtc(text);
    if (expected === 'ok') expect(r.ok && r.date.toISOString()).toBe(iso);
    else expect(r).toMatchObject({ ok: false, code: expected });
  });
});
