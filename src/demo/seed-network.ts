// The people, cars and application of the sample: accounts created and verified as an operator would (evidence
// submitted by each person, decided by the console), cars registered, verified and listed by their owners.
import { createUserAccount } from '../accounts/account.commands.js';
import { accountsModule } from '../accounts/accounts.resolvers.js';
import { createCar, listCar } from '../cars/car.commands.js';
import type { Car } from '../cars/car.entity.js';
import { createClientApplication, type WithSecret } from '../clientapps/client-application.commands.js';
import { clientappsModule } from '../clientapps/clientapps.resolvers.js';
import type { SubjectType } from '../ratings/rating.entity.js';
import { submitVerification, verifyVerification } from '../verifications/verification.commands.js';
import { Verification } from '../verifications/verification.entity.js';
import { verificationsModule } from '../verifications/verifications.resolvers.js';
import { cars, type DemoCar, type DemoPerson, demoApplication } from './demo-network.data.js';
import { dayAt, hours, newPassword, type Seeder } from './seed.context.js';

export interface SeededAccount {
  id: string;
  username: string;
  password: string;
  roles: string[];
}

const YEAR = hours(24 * 365);
const iso = (ms: number): string => new Date(ms).toISOString();

/** Submits evidence for each of the subject's verifications as its user, and has the console verify it. */
async function verify(
  s: Seeder,
  subject: { type: SubjectType; id: string; userId: string },
  evidence: Record<string, Record<string, string>>,
): Promise<void> {
  const pending = await s.em.find(Verification, { subjectType: subject.type, subjectId: subject.id });
  for (const v of pending) {
    await s.step(subject.userId, (ctx) => submitVerification(ctx, v.id, evidence[v.kind]));
    await s.byConsole(
      { action: 'verifyVerification', audit: verificationsModule.audit, args: { id: v.id } },
      (ctx) => verifyVerification(ctx, v.id, null),
    );
  }
}

export async function seedPerson(s: Seeder, p: DemoPerson, index: number): Promise<SeededAccount> {
  const password = newPassword();
  s.at(dayAt(s.now, -21, 9 + index));
  const account = await s.byConsole({ action: 'createUserAccount', audit: accountsModule.audit }, (ctx) =>
    createUserAccount(ctx, { ...p, password, roles: ['user'] }),
  );
  s.at(dayAt(s.now, -21, 10 + index));
  const licence = { number: `NL${4_815_162 + index * 7_919}`, jurisdiction: 'NL' };
  await verify(
    s,
    { type: 'UserAccount', id: account.id, userId: account.id },
    {
      Email: { emailAddress: p.username },
      PhoneNumber: { phoneNumber: p.phoneNumber },
      DriversLicense: { ...licence, expiresDateUtc: iso(s.now.getTime() + 5 * YEAR) },
    },
  );
  return { id: account.id, username: account.username, password, roles: [...account.roles] };
}

export async function seedCar(s: Seeder, c: DemoCar, ownerId: string, index: number): Promise<Car> {
  s.at(dayAt(s.now, -20, 9 + index));
  const car = await s.step(ownerId, (ctx) =>
    createCar(ctx, {
      make: c.make,
      model: c.model,
      year: c.year,
      color: c.color,
      transmission: c.transmission,
      seats: c.seats,
      description: c.description,
      licensePlate: { jurisdiction: 'NL', number: c.plate },
      homeLocation: { address: c.address, latitude: c.latitude, longitude: c.longitude },
      hourlyRate: { amount: c.hourlyRate, currency: 'EUR' },
      autoApprove: c.autoApprove,
    }),
  );
  await verify(
    s,
    { type: 'Car', id: car.id, userId: ownerId },
    {
      LicensePlate: { jurisdiction: 'NL', number: c.plate },
      RoadWorthiness: {
        certificateNumber: `APK-${c.plate.replace(/-/g, '')}`,
        expiresDateUtc: iso(s.now.getTime() + YEAR),
      },
    },
  );
  s.at(dayAt(s.now, -19, 9 + index));
  return s.step(ownerId, (ctx) => listCar(ctx, car.id));
}

export async function seedCars(s: Seeder, ownerIds: readonly string[]): Promise<Car[]> {
  const out: Car[] = [];
  for (const [i, c] of cars.entries()) out.push(await seedCar(s, c, ownerIds[c.owner]!, i));
  return out;
}

export function seedApplication(s: Seeder): Promise<WithSecret> {
  s.at(s.now);
  return s.byConsole({ action: 'createClientApplication', audit: clientappsModule.audit }, (ctx) =>
    createClientApplication(ctx, {
      name: demoApplication.name,
      description: demoApplication.description,
      grantTypes: [...demoApplication.grantTypes],
      redirectUris: [demoApplication.redirectUri],
      allowedScopes: [...demoApplication.scopes],
    }),
  );
}
