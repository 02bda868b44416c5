// Command-line administration against the configured database (CONTRACT §12, §27); prints JSON.
import {
  createUserArgs,
  createUserFromCli,
  createUserOptions,
  createUserUsage,
} from './accounts/user-account.cli.js';
import {
  clientNextStep,
  createClientArgs,
  createClientFromCli,
  createClientOptions,
  createClientUsage,
} from './clientapps/client-application.cli.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { type Database, openDatabase } from './db/database.js';
import { seedDemoArgs, seedDemoFromCli, seedDemoUsage } from './demo/seed-demo.cli.js';
import { entities } from './modules.js';
import { commandLineError, type OptionNames, UsageError } from './shared/command-line.js';
import { isDomainError } from './shared/errors.js';
import { selfSignedCertPath } from './tls.js';

const usage = `Usage:
  ${createUserUsage}
  ${createClientUsage}
  ${seedDemoUsage}
  npm run admin -- --help`;

interface AdminCommand {
  /** The option that feeds each field, so a refusal names what the operator typed. */
  options: OptionNames;
  /** Reads the arguments alone, refusing a wrong call (UsageError) before the database opens. */
  check(args: string[]): void;
  /** The JSON for stdout, and what to print after it on stderr. */
  run(db: Database, args: string[], config: Config): Promise<{ out: unknown; next?: string }>;
}

const caFileOf = (config: Config) => (config.TLS_CERT ? undefined : selfSignedCertPath(config.DATA_DIR));

const commands: Record<string, AdminCommand> = {
  'create-user': {
    options: createUserOptions,
    check: createUserArgs,
    run: async (db, args) => ({ out: await createUserFromCli(db, args) }),
  },
  'create-client': {
    options: createClientOptions,
    check: createClientArgs,
    run: async (db, args, config) => {
      const out = await createClientFromCli(db, args);
      return { out, next: clientNextStep(out, args, config) };
    },
  },
  'seed-demo': {
    options: {},
    check: seedDemoArgs,
    run: (db, args, config) =>
      seedDemoFromCli(db, args, {
        publicUrl: config.PUBLIC_URL,
        caFile: caFileOf(config),
        bookingLeadMinutes: config.BOOKING_LEAD_MINUTES,
      }),
  },
};

/** parseArgs refuses an unknown or malformed option: a usage error like an unknown command. */
const isUsageError = (err: unknown): boolean =>
  err instanceof UsageError || String((err as { code?: unknown }).code ?? '').startsWith('ERR_PARSE_ARGS');

async function run(command: AdminCommand, args: string[]): Promise<number> {
  command.check(args);
  const config = loadConfig();
  const db = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    entities,
    appRole: config.DATABASE_APP_ROLE,
  });
  try {
    const { out, next } = await command.run(db, args, config);
    process.stdout.write(`${JSON.stringify(out)}\n`);
    if (next) process.stderr.write(next);
    return 0;
  } finally {
    await db.close();
  }
}

async function main(): Promise<number> {
  const [name = '', ...args] = process.argv.slice(2);
  if (name === '--help' || name === 'help' || args.includes('--help')) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const command = commands[name];
  try {
    if (!command) throw new UsageError(name ? `unknown command ${name}` : 'no command given');
    return await run(command, args);
  } catch (err) {
    if (isUsageError(err)) {
      process.stderr.write(`${(err as Error).message}\n${usage}\n`);
      return 2;
    }
    if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
    else if (isDomainError(err))
      process.stderr.write(`${JSON.stringify(commandLineError(err, command?.options ?? {}))}\n`);
    else process.stderr.write(`${(err as Error).message ?? err}\n`);
    return 1;
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`${(err as Error).message ?? err}\n`);
    process.exit(1);
  },
);
