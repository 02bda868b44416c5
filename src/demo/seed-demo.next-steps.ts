// What `seed-demo` prints on stderr after its JSON: the commands, ready to run, that search the cars as the
// application and book one as the borrower (user-token, then one request), trusting a default start's certificate.

import { systemClock } from '../shared/clock.js';
import { trimEnd } from '../shared/trim.js';
import { borrower, cars, carToBook, city, demoApplication } from './demo-network.data.js';
import { dayAt } from './seed.context.js';

/** What a run made or found; passwords and the secret only when this run made them. */
export interface DemoView {
  accounts: { username: string; password?: string; roles: string[] }[];
  client: { clientId: string; clientSecret?: string };
  cars: number;
  /** The car the next steps book, when it exists. */
  carToBook: string | null;
}

export interface Site {
  publicUrl: string;
  caFile?: string | undefined;
  /** The car share's Id when it is not the default one: `user-token` is told it (`--car-share`). */
  carShareId?: string | undefined;
}

const quoted = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export function nextSteps(view: DemoView, site: Site, fresh: boolean): string {
  const base = trimEnd(site.publicUrl, '/');
  const curl = site.caFile ? `curl --cacert ${quoted(site.caFile)}` : 'curl';
  const secret = view.client.clientSecret ?? 'CLIENT_SECRET';
  const password = view.accounts.find((a) => a.username === borrower.username)?.password ?? 'PASSWORD';
  const car = cars[carToBook];
  // A week ahead, so the period is free and far from every cut-off whenever the commands are run.
  const now = systemClock.now();
  const period = {
    StartDateUtc: dayAt(now, 7, 10).toISOString(),
    EndDateUtc: dayAt(now, 7, 14).toISOString(),
  };
  const lines = [
    '',
    fresh
      ? 'The passwords and the client secret above are shown only once.'
      : 'The sample data was already there: nothing was added. Its passwords and client secret were shown by the ' +
        'first run (CLIENT_SECRET and PASSWORD below).',
    '',
    'Search the cars as the application: ask for a token, then call the API with its access_token:',
    '',
    `  ${curl} -u ${quoted(`${view.client.clientId}:${secret}`)} -d grant_type=client_credentials ${base}/api/oauth/token`,
    `  ${curl} -H "Authorization: Bearer ACCESS_TOKEN" ${base}/api/cars`,
    '',
    `(${base}/api/cars?near=${city.latitude},${city.longitude} sorts them by distance from ${city.name}'s centre.)`,
    '',
    `Book a car as the borrower ${borrower.username}: get their token (it prints {"access_token":…}),`,
    '',
    `  npm run --silent user-token -- --client-id ${quoted(view.client.clientId)} --client-secret=${quoted(secret)}` +
      ` --redirect-uri ${demoApplication.redirectUri} --username ${borrower.username} --password=${quoted(password)}` +
      (site.carShareId ? ` --car-share ${site.carShareId}` : ''),
    '',
    `then request the ${car.make} ${car.model} at ${car.address} with that token (it approves requests itself):`,
    '',
    `  ${curl} -H "Authorization: Bearer ACCESS_TOKEN" -H 'Content-Type: application/json'` +
      ` -d ${quoted(JSON.stringify(period))} ${base}/api/cars/${view.carToBook ?? 'CAR_ID'}/bookings`,
    '',
    `More in ${base}/docs (Getting started).`,
    '',
  ];
  return lines.join('\n');
}
