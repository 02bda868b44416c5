// `npm run admin -- create-user ...` (CONTRACT §12): creates a user account, an operator with --ops.
import { parseArgs } from 'node:util';
import { changeFromCommandLine } from '../audit/command-line.js';
import type { Database } from '../db/database.js';
import { systemClock } from '../shared/clock.js';
import { type OptionNames, requireOptions } from '../shared/command-line.js';
import { createUserAccount } from './account.commands.js';
import { accountsModule } from './accounts.resolvers.js';

export const createUserUsage = `npm run admin -- create-user --username U --password P [--ops]
                   [--first-name F] [--last-name L]   (default: from the username, ada.lovelace@… → Ada Lovelace)`;

/** The option that feeds each field of the command, for its refusals (CONTRACT §27). */
export const createUserOptions: OptionNames = {
  username: '--username',
  password: '--password',
  firstName: '--first-name',
  lastName: '--last-name',
  roles: '--ops',
};

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
    },
  });
  requireOptions(values, ['username', 'password']);
  return values;
}

export async function createUserFromCli(
  db: Pick<Database, 'orm'>,
  args: string[],
): Promise<{ Id: string; Username: string; Roles: string[] }> {
  const values = createUserArgs(args);
  const derived = namesFromUsername(values.username ?? '');
  const account = await changeFromCommandLine(
    db.orm.em,
    systemClock,
    { action: 'createUserAccount', audit: accountsModule.audit },
    (ctx) =>
      createUserAccount(ctx, {
        username: values.username ?? null,
        password: values.password ?? null,
        firstName: values['first-name'] ?? derived.firstName,
        lastName: values['last-name'] ?? derived.lastName,
        roles: values.ops ? ['user', 'ops'] : ['user'],
      }),
  );
  return { Id: account.id, Username: account.username, Roles: account.roles };
}
