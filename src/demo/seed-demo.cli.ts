// `npm run admin -- seed-demo [--car-share ID|URL]` (CONTRACT §27): fills the car share with the sample network in
// one transaction of its scope, once. A second run finds the borrower's account, adds nothing and prints what it can
// still show (no password, no secret); the advisory lock makes two runs at once in one car share one after the other.
import { parseArgs } from 'node:util';
import type { EntityManager } from '@mikro-orm/postgresql';
import { UserAccount } from '../accounts/user-account.entity.js';
import { bookingPolicy } from '../bookings/booking.policy.js';
import { Car } from '../cars/car.entity.js';
import { carShareOption } from '../carshares/car-share.cli.js';
import { ClientApplication } from '../clientapps/client-application.entity.js';
import type { Database } from '../db/database.js';
import { inCarShare } from '../db/scope.js';
import { systemClock } from '../shared/clock.js';
import { borrower, cars, carToBook, demoApplication, owners } from './demo-network.data.js';
import { Seeder } from './seed.context.js';
import { type DemoView, nextSteps, type Site } from './seed-demo.next-steps.js';
import { seedHistory } from './seed-history.js';
import { seedApplication, seedCars, seedPerson } from './seed-network.js';

export const seedDemoUsage = 'npm run admin -- seed-demo [--car-share ID|URL]';

export interface SeedDemoOutput {
  Accounts: { Username: string; Password?: string; Roles: string[] }[];
  ClientApplication: { ClientId: string; ClientSecret?: string };
  Cars: number;
}

const usernames = [...owners, borrower].map((p) => p.username);

async function lockSeeding(em: EntityManager, carShareId: string): Promise<void> {
  await em
    .getConnection()
    .execute(
      `select pg_advisory_xact_lock(hashtext('carshare:seed-demo:' || ?))`,
      [carShareId],
      'all',
      em.getTransactionContext(),
    );
}

/** What an earlier run made, found by its ordinary rows; null when the borrower's account does not exist. */
async function earlierRun(em: EntityManager): Promise<DemoView | null> {
  const accounts = await em.find(UserAccount, { username: { $in: usernames } });
  if (!accounts.some((a) => a.username === borrower.username)) return null;
  const byName = new Map(accounts.map((a) => [a.username, a]));
  const ownerIds = owners.map((o) => byName.get(o.username)?.id).filter((id): id is string => !!id);
  const [app] = await em.find(
    ClientApplication,
    { name: demoApplication.name },
    { orderBy: { createdDateUtc: 'asc' }, limit: 1 },
  );
  const seededCars = await em.find(Car, { ownerId: { $in: ownerIds } });
  const target = seededCars.find((c) => c.licensePlateNumber === cars[carToBook].plate);
  return {
    accounts: usernames.flatMap((u) => {
      const a = byName.get(u);
      return a ? [{ username: a.username, roles: [...a.roles] }] : [];
    }),
    client: { clientId: app?.clientId ?? '' },
    cars: seededCars.length,
    carToBook: target?.id ?? null,
  };
}

async function seed(em: EntityManager, leadMinutes: number): Promise<DemoView> {
  const s = new Seeder(em, bookingPolicy(leadMinutes), systemClock.now());
  const people = [];
  for (const [i, p] of [...owners, borrower].entries()) people.push(await seedPerson(s, p, i));
  const seededCars = await seedCars(
    s,
    people.slice(0, owners.length).map((p) => p.id),
  );
  await seedHistory(s, seededCars, people[owners.length]!.id);
  const app = await seedApplication(s);
  return {
    accounts: people.map((p) => ({ username: p.username, password: p.password, roles: p.roles })),
    client: { clientId: app.clientId, clientSecret: app.clientSecret },
    cars: seededCars.length,
    carToBook: seededCars[carToBook]!.id,
  };
}

/** One option: the car share to fill (admin.ts reads it; the default car share without it). */
export function seedDemoArgs(args: string[]): void {
  parseArgs({ args, options: { ...carShareOption } });
}

export async function seedDemoFromCli(
  db: Pick<Database, 'orm'>,
  args: string[],
  site: Site & { bookingLeadMinutes: number },
  carShareId: string,
): Promise<{ out: SeedDemoOutput; next: string }> {
  seedDemoArgs(args);
  const { view, fresh } = await inCarShare(db.orm, carShareId, async (em) => {
    await lockSeeding(em, carShareId);
    const earlier = await earlierRun(em);
    if (earlier) return { view: earlier, fresh: false };
    return { view: await seed(em, site.bookingLeadMinutes), fresh: true };
  });
  return {
    out: {
      Accounts: view.accounts.map((a) => ({
        Username: a.username,
        ...(a.password ? { Password: a.password } : {}),
        Roles: a.roles,
      })),
      ClientApplication: {
        ClientId: view.client.clientId,
        ...(view.client.clientSecret ? { ClientSecret: view.client.clientSecret } : {}),
      },
      Cars: view.cars,
    },
    next: nextSteps(view, site, fresh),
  };
}
