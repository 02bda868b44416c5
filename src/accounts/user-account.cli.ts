// `npm run admin -- create-user ...` (CONTRACT §12): creates a user account, an operator with --ops, in the car share
// of `--car-share` (§22); and the first operator of a car share `create-car-share` makes.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { EntityManager } from '@mikro-orm/postgresql';
import { commandLine } from '../access/actor.js';
import { auditCommandLine, changeFromCommandLine } from '../audit/command-line.js';
import { carShareOption } from '../carshares/car-share.cli.js';
import type { Database } from '../db/database.js';
import { carShareEm } from '../db/scope.js';
import { systemClock } from '../shared/clock.js';
import { type OptionNames, requireOptions, UsageError } from '../shared/command-line.js';
import { createUserAccount } from './account.commands.js';
import { accountsModule } from './accounts.resolvers.js';

export const createUserUsage = `npm run admin -- create-user --username U --password P [--ops] [--platform] [--car-share ID|URL]
                   [--first-name F] [--last-name L]   (default: from the username, ada.lovelace@… → Ada Lovelace)`;

/** The option that feeds each field of the command, for its refusals (CONTRACT §27). */
export const createUserOptions: OptionNames = {
  username: '--username',
  password: '--password',
  firstName: '--first-name',
  lastName: '--last-name',
  roles: '--ops',
};

/** `--platform` names a role only the default car share's accounts hold (CONTRACT §22): a usage error elsewhere. */
export const platformOutsideDefault =
  '--platform: role platform is held only by accounts of the default car share';

const capitalised = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/**
 * Names for an account created without them, read from its username: `ada.lovelace@example.com` is Ada Lovelace;
 * a one-word local part takes the domain's first label as the last name (`me@example.com` is Me Example), so the
 * display name (`Me E.`) reads as a name.
 */
export function namesFromUsername(username: string): { firstName: string; lastName: string } {
  const [local = '', domain = ''] = username.trim().split('@');
  const words = local
    .split(/[._+-]+/)
    .filter(Boolean)
    .map(capitalised);
  const first = words[0] ?? 'User';
  const rest = words.slice(1).join(' ');
  return { firstName: first, lastName: rest || capitalised(domain.split('.')[0] || 'User') };
}

/** The command's options, read and checked for presence; a wrong call is a UsageError or parseArgs' own. */
export function createUserArgs(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      username: { type: 'string' },
      password: { type: 'string' },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
      ops: { type: 'boolean', default: false },
      platform: { type: 'boolean', default: false },
      ...carShareOption,
    },
  });
  requireOptions(values, ['username', 'password']);
  return values;
}

export async function createUserFromCli(
  db: Pick<Database, 'orm'>,
  args: string[],
  carShare: { id: string; isDefault: boolean },
): Promise<{ Id: string; Username: string; Roles: string[] }> {
  const values = createUserArgs(args);
  if (values.platform && !carShare.isDefault) throw new UsageError(platformOutsideDefault);
  const derived = namesFromUsername(values.username ?? '');
  const account = await changeFromCommandLine(
    carShareEm(db.orm, carShare.id),
    systemClock,
    { action: 'createUserAccount', audit: accountsModule.audit },
    (ctx) =>
      createUserAccount(ctx, {
        username: values.username ?? null,
        password: values.password ?? null,
        firstName: values['first-name'] ?? derived.firstName,
        lastName: values['last-name'] ?? derived.lastName,
        roles: [
          'user',
          ...(values.ops ? (['ops'] as const) : []),
          ...(values.platform ? (['platform'] as const) : []),
        ],
      }),
  );
  return { Id: account.id, Username: account.username, Roles: account.roles };
}

/**
 * A new car share's first operator (roles user and ops), made on `em`, a transaction already in that car share's
 * scope, and audited as the console's. Without a password one is generated, and returned only then.
 */
export async function createFirstOperator(
  em: EntityManager,
  operator: { username: string; password: string | undefined },
): Promise<{ Id: string; Username: string; Password?: string }> {
  const password = operator.password ?? randomBytes(18).toString('base64url');
  const ctx = { em, actor: commandLine, clock: systemClock };
  const account = await createUserAccount(ctx, {
    username: operator.username,
    password,
    ...namesFromUsername(operator.username),
    roles: ['user', 'ops'],
  });
  auditCommandLine(ctx, { action: 'createUserAccount', audit: accountsModule.audit }, account);
  return {
    Id: account.id,
    Username: account.username,
    ...(operator.password === undefined ? { Password: password } : {}),
  };
}
