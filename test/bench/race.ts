// R1: no double booking under a race, through the running service over HTTPS. Each round, 50 requests for one
// period of one car wait as Pending; then their 50 approvals (by the owner) and 50 new auto-approved requests
// for the same period go out at once. Exactly one may win; afterwards no two Approved/InUse bookings of the car
// overlap (checked in SQL over every round). A won request answers 201, a won approval 202 (CONTRACT §2).
import { Agent, request } from 'undici';
import type { Bench } from './measure.js';
import { BENCH_PASSWORD } from './seed.js';
import { APP_SCOPES, type Prepared, REDIRECT_URI } from './setup.js';
import { userToken } from './tokens.js';

const ROUNDS = 20;
const PARALLEL = 50;
const HOUR = 3_600_000;

export interface RaceResult {
  rounds: number;
  parallel: number;
  /** Rounds in which other than exactly one request or approval succeeded. */
  roundsNotOneWinner: number;
  /** Pairs of Approved/InUse bookings of the car that overlap. */
  overlaps: number;
  unexpected: string[];
  table: string;
}

export async function runRace(
  b: Bench,
  o: { port: number; prepared: Prepared; borrowerToken: string; carId: string; from: string },
  log: (line: string) => void,
): Promise<RaceResult> {
  log(`  R1: ${PARALLEL} parallel overlapping requests and approvals of one car × ${ROUNDS} rounds`);
  const origin = `https://localhost:${o.port}`;
  const { rows } = await b.db.query<{ username: string }>(
    'select u.username from car c join user_account u on u.id = c.owner_id where c.id = $1',
    [o.carId],
  );
  const ownerToken = await userToken(
    origin,
    b.ca,
    o.prepared.app,
    REDIRECT_URI,
    { username: rows[0]!.username, password: BENCH_PASSWORD },
    APP_SCOPES,
  );
  const agent = new Agent({ connect: { ca: b.ca }, connections: PARALLEL * 2 });
  const call = async (method: 'POST' | 'PUT', path: string, token: string, body?: object) => {
    const r = await request(`${origin}${path}`, {
      method,
      dispatcher: agent,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await r.body.text();
    return { status: r.statusCode, json: text ? (JSON.parse(text) as Record<string, any>) : {} };
  };
  const unexpected: string[] = [];
  let roundsNotOneWinner = 0;
  // Far from every other scenario's periods: each round a day of its own.
  const base = Date.parse(o.from) + 400 * 24 * HOUR;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const start = new Date(base + round * 24 * HOUR).toISOString();
      const period = { StartDateUtc: start, EndDateUtc: new Date(Date.parse(start) + HOUR).toISOString() };
      await b.db.query('update car set auto_approve = false where id = $1', [o.carId]);
      const pending = await Promise.all(
        Array.from({ length: PARALLEL }, () =>
          call('POST', `/api/cars/${o.carId}/bookings`, o.borrowerToken, period),
        ),
      );
      const ids = pending.map((r) => r.json.Booking?.Id as string | undefined).filter((id) => id);
      if (ids.length !== PARALLEL)
        unexpected.push(`round ${round}: ${ids.length} of ${PARALLEL} requests Pending`);
      await b.db.query('update car set auto_approve = true where id = $1', [o.carId]);
      const raced = await Promise.all([
        ...ids.map((id) => call('PUT', `/api/bookings/${id}/approve`, ownerToken)),
        ...Array.from({ length: PARALLEL }, () =>
          call('POST', `/api/cars/${o.carId}/bookings`, o.borrowerToken, period),
        ),
      ]);
      const won = raced.filter((r) => r.status === 201 || r.status === 202).length;
      const refused = raced.filter(
        (r) => r.status === 409 && r.json.ResponseStatus?.ErrorCode === 'CarUnavailable',
      ).length;
      if (won !== 1) roundsNotOneWinner += 1;
      if (won + refused !== raced.length)
        unexpected.push(
          `round ${round}: ${raced.length - won - refused} answers neither a win nor 409 CarUnavailable (${[
            ...new Set(raced.map((r) => r.status)),
          ].join(', ')})`,
        );
    }
  } finally {
    await b.db.query('update car set auto_approve = true where id = $1', [o.carId]);
    await agent.close();
  }
  const { rows: over } = await b.db.query<{ n: string }>(
    `select count(*) as n from car_booking x join car_booking y on x.car_id = y.car_id and x.id < y.id
      where x.car_id = $1 and x.state in ('Approved', 'InUse') and y.state in ('Approved', 'InUse')
        and tstzrange(x.start_date_utc, x.end_date_utc, '[)') && tstzrange(y.start_date_utc, y.end_date_utc, '[)')`,
    [o.carId],
  );
  const overlaps = Number(over[0]!.n);
  log(
    `    R1: ${overlaps} overlapping Approved/InUse pairs; ${roundsNotOneWinner} rounds without exactly one winner`,
  );
  for (const u of unexpected.slice(0, 5)) log(`    R1: ${u}`);
  const table = [
    '| R1 booking race | rounds × parallel | overlapping Approved/InUse | rounds without exactly one winner | other answers |',
    '|---|---:|---:|---:|---:|',
    `| ${PARALLEL} approvals + ${PARALLEL} auto-approved requests of one period at once | ${ROUNDS} × ${PARALLEL * 2} | ${overlaps} | ${roundsNotOneWinner} | ${unexpected.length} |`,
  ].join('\n');
  return { rounds: ROUNDS, parallel: PARALLEL, roundsNotOneWinner, overlaps, unexpected, table };
}
