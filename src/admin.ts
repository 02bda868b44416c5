// Command-line administration against the configured database (CONTRACT §12); prints JSON.
import { parseArgs } from 'node:util';
import { type Actor, apiScopes } from './access/actor.js';
import { createUserAccount } from './accounts/account.commands.js';
import { clientNextStep, createClientFromCli } from './clientapps/client-application.cli.js';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/database.js';
import { entities } from './modules.js';
import { systemClock } from './shared/clock.js';
import { type DomainError, fieldLabel, isDomainError } from './shared/errors.js';

/** The operator at the console: allowed to assign roles. */
const console: Actor = { kind: 'clientapplication', id: null, roles: [], scopes: apiScopes };

const usage = `Usage:
  npm run admin -- create-user --username U --password P [--ops]
  npm run admin -- create-client --name N --grant client_credentials|authorization_code [--grant ...]
                   [--scopes "a b"] [--redirect-uri URI ...] [--refresh]`;

type Command = (db: Awaited<ReturnType<typeof openDatabase>>, args: string[]) => Promise<unknown>;

const commands: Record<string, Command> = {
  'create-user': async (db, args) => {
    const { values } = parseArgs({
      args,
      options: {
        username: { type: 'string' },
        password: { type: 'string' },
        ops: { type: 'boolean', default: false },
      },
    });
    const em = db.orm.em.fork();
    const account = await em.transactional((tem) =>
      createUserAccount(
        { em: tem as typeof em, actor: console, clock: systemClock },
        {
          username: values.username ?? null,
          password: values.password ?? null,
          firstName: values.username?.split('@')[0] ?? 'User',
          lastName: '-',
          roles: values.ops ? ['user', 'ops'] : ['user'],
        },
      ),
    );
    return { Id: account.id, Username: account.username, Roles: account.roles };
  },
  'create-client': createClientFromCli,
};

async function main(): Promise<number> {
  const [name, ...args] = process.argv.slice(2);
  const command = name ? commands[name] : undefined;
  if (!command) {
    process.stderr.write(`${usage}\n`);
    return 2;
  }
  const config = loadConfig();
  const db = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, entities });
  try {
    const result = await command(db, args);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    if (name === 'create-client') process.stderr.write(clientNextStep(result, args, config));
    return 0;
  } finally {
    await db.close();
  }
}

/** A refusal in the API's own shape (CONTRACT §10's ResponseStatus), so scripts read one vocabulary. */
function responseStatusOf(err: DomainError) {
  const { errors, meta } = err.details;
  return {
    ErrorCode: err.code,
    Message: err.message,
    Errors: (errors ?? []).map((e) => ({
      ErrorCode: e.code,
      FieldName: fieldLabel(e.field),
      Message: e.message,
      ...(e.meta ? { Meta: e.meta } : {}),
    })),
    ...(meta ? { Meta: meta } : {}),
  };
}

/** parseArgs refuses an unknown or malformed option: a usage error like an unknown command. */
const isUsageError = (err: unknown): boolean =>
  String((err as { code?: unknown }).code ?? '').startsWith('ERR_PARSE_ARGS');

main().then(
  (code) => process.exit(code),
  (err) => {
    if (isUsageError(err)) {
      process.stderr.write(`${(err as Error).message}\n${usage}\n`);
      process.exit(2);
    }
    if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
    else if (isDomainError(err)) process.stderr.write(`${JSON.stringify(responseStatusOf(err))}\n`);
    else process.stderr.write(`${(err as Error).message ?? err}\n`);
    process.exit(1);
  },
);
