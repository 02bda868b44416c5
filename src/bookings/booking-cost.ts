// EstimatedCost: the hourly rate × the booked hours, rounded half up to the cent, in exact integer arithmetic.

export interface Money {
  amount: string;
  currency: string;
}

const HOUR_MS = 3_600_000n;

/** `12.5` or `12.50` → 1250n (the rate column has two decimals). */
function toCents(amount: string): bigint {
  const [whole = '0', frac = ''] = amount.trim().split('.');
  return BigInt(whole) * 100n + BigInt(frac.padEnd(2, '0').slice(0, 2));
}

function fromCents(cents: bigint): string {
  const whole = cents / 100n;
  const frac = (cents % 100n).toString().padStart(2, '0');
  return `${whole}.${frac}`;
}

export function estimatedCost(rate: Money, start: Date, end: Date): Money {
  const ms = BigInt(Math.max(0, end.getTime() - start.getTime()));
  // cents × ms / hour, rounded half up: floor((2·x + hour) / (2·hour)).
  const cents = (2n * toCents(rate.amount) * ms + HOUR_MS) / (2n * HOUR_MS);
  return { amount: fromCents(cents), currency: rate.currency };
}
